// The pictures a run folder gets with plots=true, under Ultralytics' file names: a validation's confusion
// matrices and curves, and results.png from results.csv. Torch- and OpenCV-free API.
// Thread rules: free functions, reentrant; a folder is written by one thread at a time.
#pragma once
#include <string>
#include <vector>

#include "ywb/metrics.h"

namespace ywb {

/// The file stems of a validation's plots, Ultralytics' names in its order: confusion_matrix,
/// confusion_matrix_normalized, BoxPR_curve, BoxF1_curve, BoxP_curve, BoxR_curve; and results.png's stem.
const std::vector<std::string>& metricPlotStems();
const char* resultsPlotStem();
/// The training labels' picture a run gets when it starts (Ultralytics' labels.jpg).
const char* labelsPlotFileName();

/// Writes the metric plots (metricPlotStems(), .png; .jpg where this build has no PNG encoder) into the
/// existing folder `dir`, each file atomically. `names[c]` names class c. Returns the paths written. Throws
/// ywb::Error naming the file.
std::vector<std::string> writeMetricPlots(const DetectionResults& results,
                                          const std::vector<std::string>& names, const std::string& dir);

/// Writes results.png (or .jpg, as above) beside a results.csv from its rows. Returns the path. Throws
/// ywb::Error (an unreadable or malformed results.csv, a failed write), naming the file.
std::string writeResultsPlot(const std::string& results_csv);

}  // namespace ywb
