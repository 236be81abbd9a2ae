// labels.jpg, the picture of a training set's labels that Ultralytics writes when a run starts (plots=true):
// instances per class (bars in the class colours), up to 500 box outlines centred on one canvas (their
// shapes), and 50 x 50-bin histograms of the boxes' centres (x, y) and sizes (width, height), normalised
// to the image. The histograms are coloured as seaborn's histplot(pmax=0.9) colours them: the colour
// saturates at the count below which 90% of the boxes lie.
// Thread rules: free functions, reentrant.
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/scanned_split.h"
#include "eval/plot_canvas.h"

namespace ywb {

/// The picture's side, the box outlines drawn, the histograms' bins and their colour saturation point.
constexpr int kLabelsPlotSide = 1600;
constexpr size_t kLabelsPlotOutlines = 500;
constexpr int kLabelsPlotBins = 50;
constexpr double kLabelsPlotPmax = 0.9;
/// Class names are written under the bars below this many classes (Ultralytics' rule), else "classes".
constexpr int kLabelsPlotMaxNames = 30;

/// A 2-D histogram over [x.lo, x.hi] x [y.lo, y.hi] with `bins` equal bins per side (numpy's
/// histogram2d: the last bin holds its upper edge; a range of one value is widened by 0.5 each way).
struct Histogram2d {
  plot::Range x, y;
  int bins = 0;
  std::vector<int64_t> counts;  ///< bin (ix, iy) at ix * bins + iy
  int64_t at(int ix, int iy) const { return counts[size_t(ix) * size_t(bins) + size_t(iy)]; }
};
Histogram2d histogram2d(const std::vector<double>& xs, const std::vector<double>& ys, int bins);

/// seaborn's pmax rule: the count at which a colour map saturates so that the cells below it hold `pmax`
/// of the total, i.e. the count of the cell where the densest cells, taken in turn, first reach 1 - pmax
/// of it. 1 for an empty histogram.
int64_t saturationCount(const std::vector<int64_t>& counts, double pmax);

/// Panel k's frame: 0 the class bars, 1 the outlines, 2 centres, 3 sizes (2 x 2, row by row).
cv::Rect labelsPanel(int k);
/// The square the outlines are drawn on inside panel 1 (a box of size w x h is centred on it).
cv::Rect labelsOutlineArea();
/// The names under the bars: names[c] (or c) for each class when there are fewer than 30, else none.
std::vector<std::string> labelsBarNames(int nc, const std::vector<std::string>& names);

/// The picture (BGR, kLabelsPlotSide square) of `boxes` of a set of `nc` classes.
cv::Mat renderLabelsPlot(const std::vector<LabelBox>& boxes, int nc, const std::vector<std::string>& names);

/// Every box of a split's usable images, in image order.
std::vector<LabelBox> splitBoxes(const ScannedSplit& split);

}  // namespace ywb
