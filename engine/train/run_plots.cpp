#include "train/run_plots.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/batch_plot.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "data/labels_plot.h"
#include "train/checkpoint_files.h"
#include "train/epoch_validation.h"
#include "train/model_loader.h"
#include "train/train_session.h"
#include "ywb/plots.h"
#include "ywb/run_files.h"

namespace fs = std::filesystem;

namespace ywb {

bool plotsTrainBatch(const TrainSession& s, int64_t ni, int64_t batches) {
  if (s.run_dir.empty()) return false;  // no run folder (`ywb bench train`): nothing is written
  if (ni >= 0 && ni < 3) return true;
  const int close_at = s.closeMosaicEpoch();
  const int64_t first = int64_t(close_at) * batches;
  return close_at > 0 && ni >= first && ni < first + 3;
}

void plotTrainBatch(TrainSession& s, const Batch& batch, int64_t ni) {
  const std::string path = (fs::path(s.run_dir) / ("train_batch" + std::to_string(ni) + ".jpg")).string();
  try {
    writeFileAtomic(path, encodeJpeg(renderBatch(batch.images, batch.targets, batch.paths, s.names), 90));
  } catch (const std::exception& e) {
    s.log(std::string("plot not written (training goes on): ") + e.what());
  }
}

std::future<std::string> startLabelsPlot(const TrainSession& s) {
  // What the thread reads is its own: the split is immutable and shared, the rest copied.
  return std::async(std::launch::async, [split = s.train_split, names = s.names, nc = s.nc,
                                         path = (fs::path(s.run_dir) / labelsPlotFileName()).string()] {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<LabelBox> boxes = splitBoxes(*split);
      writeFileAtomic(path, encodeJpeg(renderLabelsPlot(boxes, nc, names), 90));
      char took[48];
      std::snprintf(took, sizeof took, " (%.2f s, beside training)",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      return std::string(labelsPlotFileName()) + ": " + std::to_string(boxes.size()) + " training boxes of " +
             std::to_string(split->images.size()) + " images" + took;
    } catch (const std::exception& e) {
      return std::string("plot not written (training goes on): ") + e.what();
    }
  });
}

ValBatchPlot captureValBatch(const Batch& batch, const std::vector<at::Tensor>& detections) {
  ValBatchPlot p;
  const int64_t n = std::min<int64_t>(batch.images.size(0), kBatchPlotImages);
  p.images = batch.images.narrow(0, 0, n).to(at::kCPU).clone();
  p.targets = batch.targets.to(at::kCPU).clone();
  p.paths.assign(batch.paths.begin(), batch.paths.begin() + std::min<size_t>(size_t(n), batch.paths.size()));
  for (int64_t i = 0; i < n && size_t(i) < detections.size(); ++i) {
    const at::Tensor c = detections[size_t(i)].to(at::kCPU, at::kFloat).contiguous();
    const auto a = c.accessor<float, 2>();
    std::vector<DrawnBox> boxes;
    for (int64_t k = 0; k < c.size(0); ++k)
      if (a[k][4] > kPlottedConfidence)
        boxes.push_back({a[k][0], a[k][1], a[k][2], a[k][3], int(a[k][5]), a[k][4]});
    p.predicted.push_back(std::move(boxes));
  }
  return p;
}

std::vector<std::string> writeValBatch(const std::string& dir, int64_t index, const ValBatchPlot& b,
                                       const std::vector<std::string>& names) {
  const std::string stem = (fs::path(dir) / ("val_batch" + std::to_string(index))).string();
  const std::vector<std::string> paths = {stem + "_labels.jpg", stem + "_pred.jpg"};
  writeFileAtomic(paths[0], encodeJpeg(renderBatch(b.images, b.targets, b.paths, names), 90));
  writeFileAtomic(paths[1], encodeJpeg(renderBatchBoxes(b.images, b.predicted, b.paths, names), 90));
  return paths;
}

namespace {

// The best epoch was validated before this session (a resume): its weights (best's EMA, as validated then)
// are validated again under the run's rules, for its plots. Empty when there is no best.
std::optional<ValPlots> validateBest(TrainSession& s) {
  const std::string best = CheckpointFiles::bestPath(s.run_dir);
  if (s.best_epoch < 0 || !s.val_loader || !fs::exists(best)) return std::nullopt;
  LoadedModel lm = loadModelWeights(best, s.device);
  ValidatorOptions vo = runValidatorOptions(s);
  ValPlots plots;
  plots.epoch = s.best_epoch;
  vo.on_batch = [&plots](const Batch& b, const std::vector<at::Tensor>& dets, int64_t index) {
    if (index < kValBatchPlots) plots.batches.push_back(captureValBatch(b, dets));
  };
  plots.results = runValidation(*lm.model, *s.val_loader, nullptr, s.nc, vo, s.device).metrics;
  return plots;
}

}  // namespace

void writeRunPlots(TrainSession& s) {
  try {
    bool again = false;
    if (!s.best_val && s.best_epoch >= 0) {
      s.best_val = validateBest(s);
      again = s.best_val.has_value();
    }
    std::string done = "no confusion matrix or curves: no epoch was validated";
    if (s.best_val) {
      writeMetricPlots(s.best_val->results, s.names, s.run_dir);
      for (size_t k = 0; k < s.best_val->batches.size(); ++k)
        writeValBatch(s.run_dir, int64_t(k), s.best_val->batches[k], s.names);
      done = "plots of epoch " + std::to_string(s.best_val->epoch + 1) + " (best" +
             (again ? ", validated again: it was validated before this resume" : "") +
             "): confusion_matrix, BoxPR_curve, BoxF1_curve, BoxP_curve, BoxR_curve, val_batch; results.png";
    }
    // Last: its presence says the run's plots are complete (runPlotsFinished).
    const std::string csv = run_files::path(s.run_dir, run_files::kResults);
    if (fs::exists(csv)) writeResultsPlot(csv);
    s.log(done);
  } catch (const std::exception& e) {
    s.log(std::string("plots not written: ") + e.what());
  }
}

bool runPlotsFinished(const std::string& run_dir) {
  for (const char* ext : {".png", ".jpg"})
    if (fs::exists(fs::path(run_dir) / (std::string(resultsPlotStem()) + ext))) return true;
  return false;
}

}  // namespace ywb
