// Precision, recall and F1 as functions of the confidence threshold, per class, as Ultralytics defines
// them (its ap_per_class): 1000 confidence points, recall/precision interpolated along the score-sorted
// matches, best threshold = argmax of the box-filtered (10%) mean F1.
// Thread rules: pure function.
#pragma once
#include <vector>

#include "eval/coco_evaluator.h"

namespace ywb::eval {

struct ConfidenceCurves {
  std::vector<double> confidence;                            ///< 1000 points, np.linspace(0, 1, 1000)
  std::vector<std::vector<double>> precision, recall, f1;    ///< [class][1000]; empty for classes without gt
  std::vector<double> precision_mean, recall_mean, f1_mean;  ///< over classes with gt (zeros if none)
  int best = 0;  ///< index of the best confidence (argmax of smoothed mean F1)
};

/// `matches[k]`: one class's detections in score order with their IoU-0.50 true-positive flags.
ConfidenceCurves confidenceCurves(const std::vector<CocoCategoryMatches>& matches);

/// numpy.interp(x, xp, fp, left, right=fp[-1]) for increasing xp (duplicates allowed).
double npInterp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left);

}  // namespace ywb::eval
