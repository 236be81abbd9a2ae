// Ultralytics-convention confusion matrix, accumulated per image.
// Thread rules: one thread at a time; merge() combines accumulators.
#pragma once
#include <vector>

#include "ywb/metrics.h"

namespace ywb::eval {

class ConfusionAccumulator {
 public:
  ConfusionAccumulator(int num_classes, double conf, double iou);
  /// Adds one image. Detections at or below `conf` are dropped; the remaining ones are matched to
  /// ground truth of any class with IoU > `iou`, each detection and each box used at most once
  /// (highest IoU first).
  void add(const std::vector<GtBox>& gt, const std::vector<DetBox>& detections);
  void merge(const ConfusionAccumulator& other);
  void reset();
  const ConfusionMatrix& matrix() const { return m_; }

 private:
  void bump(int predicted, int truth) { ++m_.counts[size_t(predicted) * (m_.num_classes + 1) + truth]; }

  ConfusionMatrix m_;
  double conf_, iou_;
};

}  // namespace ywb::eval
