// results.png: a run's results.csv as Ultralytics draws it, ten panels (training losses, precision, recall,
// validation losses, mAP50, mAP50-95) against the epoch, each with its values and a smoothed line.
// Thread rules: free functions, reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "ywb/plots.h"
#include "ywb/results_csv.h"

namespace ywb {

/// The results.csv columns results.png shows, in panel order (two rows of five).
const std::vector<std::string>& resultsPlotColumns();
/// Panel k's frame in the picture (its data area is plot::Chart::plotArea of it).
cv::Rect resultsPanel(int k);
/// The colour of the values (BGR); the smoothed line is drawn in another.
cv::Scalar resultsValueColour();
/// Each panel's values: the column's value per row (NaN for rows not validated, in the metric and validation
/// columns), against the rows' epochs.
cv::Mat renderResults(const std::vector<ResultsRow>& rows);
/// A Gaussian-smoothed copy (sigma in points, edges reflected, NaN left out), as Ultralytics smooths them.
std::vector<double> smoothSeries(const std::vector<double>& values, double sigma);

}  // namespace ywb
