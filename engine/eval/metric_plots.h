// The pictures of a validation, as Ultralytics writes them into a run folder (plots=true): the confusion
// matrix in counts and normalised per true class, the precision-recall curve at IoU 0.50 and the F1,
// precision and recall curves against the confidence threshold, each per class and as the mean over the
// classes with ground truth.
// writeMetricPlots (ywb/plots.h) writes them. Thread rules: free functions, reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "ywb/plots.h"

namespace ywb {

/// Where a confusion matrix's cells lie in its picture: cell (row, col) of the n x n grid (n = classes + 1,
/// the last being background) is the square of side `cell` at (grid.x + col * cell, grid.y + row * cell).
struct ConfusionLayout {
  cv::Point grid;
  int cell = 0;
  int n = 0;
  cv::Size image;
  cv::Rect cellRect(int row, int col) const { return {grid.x + col * cell, grid.y + row * cell, cell, cell}; }
};
/// The layout for `m` with these class names (the names set the margins).
ConfusionLayout confusionLayout(const ConfusionMatrix& m, const std::vector<std::string>& names);

/// Rows are the predicted class, columns the true class (ConfusionMatrix's order). `normalized`: each
/// column divided by its sum (what share of a class's boxes went where), else counts; zero cells are left
/// white, the colour runs from white to dark blue over [0, 1] (normalised) or [0, largest count].
cv::Mat renderConfusionMatrix(const ConfusionMatrix& m, const std::vector<std::string>& names,
                              bool normalized);

/// The size of the curve plots, and the frame of their axes (their data area is plot::Chart::plotArea of
/// it; the legend lies to its right).
cv::Size curvePlotSize();
cv::Rect curveFrame();

/// Precision against recall (COCO's 101 recall points, IoU 0.50) per class and their mean, drawn in
/// axes [0, 1] x [0, 1]; the legend gives each class's AP50 (up to 20 classes) and the mean's mAP50.
cv::Mat renderPrCurve(const DetectionResults& r, const std::vector<std::string>& names);

enum class ConfidenceCurve { F1, Precision, Recall };
/// F1, precision or recall against the confidence threshold (1000 points) per class and their mean; the
/// legend gives the mean's highest value and the confidence where it is reached.
cv::Mat renderConfidenceCurve(const DetectionResults& r, const std::vector<std::string>& names,
                              ConfidenceCurve which);

/// The colour of the mean curve in the curve plots (BGR), and of the per-class curves past 20 classes.
cv::Scalar meanCurveColour();

/// Writes a BGR picture as `dir/stem.png` (`.jpg` where this build has no PNG encoder), atomically. Returns
/// the path. Throws ywb::Error naming the file.
std::string writePlotImage(const cv::Mat& bgr, const std::string& dir, const std::string& stem);

}  // namespace ywb
