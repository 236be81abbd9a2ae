// A training run's plots (plots=true, Ultralytics' default), under Ultralytics' file names in the run folder:
// train_batch<step>.jpg for the run's first three steps and the first three without Mosaic, and at the end
// results.png and the best epoch's confusion matrices, curves (ywb/plots.h) and val_batch pictures (its
// validation's first three batches with labels and with predictions), which `ywb val` writes too.
// Thread rules: the training thread, main rank only. A plot that cannot be written is logged; the run goes
// on.
#pragma once
#include <ATen/Tensor.h>

#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "data/box_drawing.h"
#include "ywb/metrics.h"

namespace ywb {

struct Batch;
struct TrainSession;

/// Whether step `ni` (counted over the run, `batches` per epoch) gets a train_batch picture: steps 0-2 and
/// the first three steps of the epoch where Mosaic closes (Ultralytics' plot_idx); none without a run folder.
bool plotsTrainBatch(const TrainSession& s, int64_t ni, int64_t batches);
/// Writes train_batch<ni>.jpg of `batch` (ywb/data/batch_plot.h) into the run folder.
void plotTrainBatch(TrainSession& s, const Batch& batch, int64_t ni);
/// Starts drawing labels.jpg (data/labels_plot.h) of the training split into the run folder on a thread of
/// its own, so that the first step does not wait for it; the future gives the line to log (what was drawn,
/// or why it was not). Call on the main rank with plots=true after the session is set up.
std::future<std::string> startLabelsPlot(const TrainSession& s);
/// Writes the confusion matrices, curves and val_batch pictures of the best epoch (validated again when that
/// was before this process: a resume), else the log says why there are none; then results.png from
/// results.csv, last, so that its presence marks the end-of-run plots as complete.
void writeRunPlots(TrainSession& s);
/// Whether `run_dir` has results.png (or .jpg), the last of writeRunPlots' files: false for a run stopped
/// before or while its end-of-run plots were written (a resume of it writes them).
bool runPlotsFinished(const std::string& run_dir);

/// Validation batches drawn (Ultralytics' val_batch0 to val_batch2), and the confidence above which their
/// predictions are drawn (Ultralytics' plot_images threshold).
constexpr int64_t kValBatchPlots = 3;
constexpr float kPlottedConfidence = 0.25f;

/// What a val_batch picture needs of a validation batch, kept past the batch: its first 16 images (uint8
/// [n, 3, H, W] on the host), its labels ([M, 6] as Batch::targets), files, and per image the predictions
/// above kPlottedConfidence in the batch's pixels.
struct ValBatchPlot {
  at::Tensor images, targets;
  std::vector<std::string> paths;
  std::vector<std::vector<DrawnBox>> predicted;
};
/// Takes it from a batch and its detections ([k, 6] per image: x1, y1, x2, y2, score, class).
ValBatchPlot captureValBatch(const Batch& batch, const std::vector<at::Tensor>& detections);
/// Writes val_batch<index>_labels.jpg and val_batch<index>_pred.jpg into `dir`. Returns the paths. Throws
/// ywb::Error.
std::vector<std::string> writeValBatch(const std::string& dir, int64_t index, const ValBatchPlot& batch,
                                       const std::vector<std::string>& names);

/// A validation kept for the run's end-of-run plots: its metrics and its first val_batch pictures.
struct ValPlots {
  int epoch = -1;
  DetectionResults results;
  std::vector<ValBatchPlot> batches;
};

}  // namespace ywb
