#include "train/run_plots.h"

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/batch_plot.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "train/checkpoint_files.h"
#include "train/train_session.h"
#include "ywb/plots.h"

namespace fs = std::filesystem;

namespace ywb {

bool plotsTrainBatch(const TrainSession& s, int64_t ni, int64_t batches) {
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

std::vector<std::string> plotValBatch(const std::string& dir, int64_t index, const Batch& batch,
                                      const std::vector<at::Tensor>& detections,
                                      const std::vector<std::string>& names) {
  const std::string stem = (fs::path(dir) / ("val_batch" + std::to_string(index))).string();
  std::vector<std::vector<DrawnBox>> predicted;
  for (const at::Tensor& d : detections) {
    const at::Tensor c = d.to(at::kCPU, at::kFloat).contiguous();
    const auto a = c.accessor<float, 2>();
    std::vector<DrawnBox> boxes;
    for (int64_t k = 0; k < c.size(0); ++k)
      if (a[k][4] > kPlottedConfidence)
        boxes.push_back({a[k][0], a[k][1], a[k][2], a[k][3], int(a[k][5]), a[k][4]});
    predicted.push_back(std::move(boxes));
  }
  const std::vector<std::string> paths = {stem + "_labels.jpg", stem + "_pred.jpg"};
  writeFileAtomic(paths[0], encodeJpeg(renderBatch(batch.images, batch.targets, batch.paths, names), 90));
  writeFileAtomic(paths[1], encodeJpeg(renderBatchBoxes(batch.images, predicted, batch.paths, names), 90));
  return paths;
}

void writeRunPlots(TrainSession& s) {
  try {
    const std::string csv = (fs::path(s.run_dir) / "results.csv").string();
    if (fs::exists(csv)) writeResultsPlot(csv);
    if (s.best_val) {
      writeMetricPlots(*s.best_val, s.names, s.run_dir);
      s.log("plots of epoch " + std::to_string(s.best_val_epoch + 1) +
            " (best): confusion_matrix, BoxPR_curve, BoxF1_curve, BoxP_curve, BoxR_curve; results.png");
    } else if (s.best_epoch >= 0) {
      s.log("no confusion matrix or curves: the best epoch (" + std::to_string(s.best_epoch + 1) +
            ") was validated before this resume; `ywb val weights=" + CheckpointFiles::bestPath(s.run_dir) +
            "` draws them");
    } else {
      s.log("no confusion matrix or curves: no epoch was validated");
    }
  } catch (const std::exception& e) {
    s.log(std::string("plots not written: ") + e.what());
  }
}

}  // namespace ywb
