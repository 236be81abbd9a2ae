// A training run's plots (plots=true, Ultralytics' default), under Ultralytics' file names in the run folder:
// train_batch<step>.jpg for the run's first three steps and the first three without Mosaic, and at the end
// results.png and the best epoch's confusion matrices and curves (ywb/plots.h); and `ywb val`'s val_batch
// pictures.
// Thread rules: the training thread, main rank only. A plot that cannot be written is logged; the run goes
// on.
#pragma once
#include <ATen/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

struct Batch;
struct TrainSession;

/// Whether step `ni` (counted over the run, `batches` per epoch) gets a train_batch picture: steps 0-2 and
/// the first three steps of the epoch where Mosaic closes (Ultralytics' plot_idx).
bool plotsTrainBatch(const TrainSession& s, int64_t ni, int64_t batches);
/// Writes train_batch<ni>.jpg of `batch` (ywb/data/batch_plot.h) into the run folder.
void plotTrainBatch(TrainSession& s, const Batch& batch, int64_t ni);
/// Writes results.png from results.csv, and the confusion matrices and curves of the best epoch when it was
/// validated in this process (else the log says why there are none).
void writeRunPlots(TrainSession& s);

/// Validation batches drawn (Ultralytics' val_batch0 to val_batch2), and the confidence above which their
/// predictions are drawn (Ultralytics' plot_images threshold).
constexpr int64_t kValBatchPlots = 3;
constexpr float kPlottedConfidence = 0.25f;
/// Writes val_batch<index>_labels.jpg (the batch's labels) and val_batch<index>_pred.jpg (`detections` per
/// image, [k, 6] in the batch's pixels, those above kPlottedConfidence with their scores) into `dir`. Returns
/// the paths. Throws ywb::Error.
std::vector<std::string> plotValBatch(const std::string& dir, int64_t index, const Batch& batch,
                                      const std::vector<at::Tensor>& detections,
                                      const std::vector<std::string>& names);

}  // namespace ywb
