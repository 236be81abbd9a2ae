// Model-selection fitness (ywb/metrics.h): the one definition.
#include <array>

#include "ywb/metrics.h"

namespace ywb {

double modelFitness(double precision, double recall, double map50, double map50_95) {
  // Weights of (P, R, mAP50, mAP50-95). Ultralytics 8.3's detection fitness is mAP50-95 alone: the checkpoint
  // fixture ../shared/fixtures/ultralytics/yolov8n-shapes.pt stores train_metrics.fitness bit-identical to
  // metrics/mAP50-95(B) while its mAP50 differs.
  static constexpr std::array<double, 4> kWeights = {0.0, 0.0, 0.0, 1.0};
  return kWeights[0] * precision + kWeights[1] * recall + kWeights[2] * map50 + kWeights[3] * map50_95;
}

double DetectionResults::fitness() const {
  return modelFitness(precision, recall, map50, map);
}

}  // namespace ywb
