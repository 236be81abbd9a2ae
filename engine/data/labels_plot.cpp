#include "data/labels_plot.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <opencv2/imgproc.hpp>

#include "core/class_name.h"
#include "data/box_drawing.h"

namespace ywb {
namespace {

plot::Range edgesOf(const std::vector<double>& v) {
  if (v.empty()) return {0, 1};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  if (*lo == *hi) return {*lo - 0.5, *hi + 0.5};  // numpy's rule for a range of one value
  return {*lo, *hi};
}

int binOf(double v, const plot::Range& r, int bins) {
  const int b = int(std::floor((v - r.lo) / (r.hi - r.lo) * bins));
  return std::clamp(b, 0, bins - 1);  // the upper edge belongs to the last bin
}

// One histogram panel: each non-empty bin filled with the Blues colour of its count over the saturation
// count (seaborn's light-to-blue map; empty bins stay white).
void drawHistogram(cv::Mat& img, cv::Rect frame, const Histogram2d& h, const std::string& x_label,
                   const std::string& y_label) {
  plot::Chart chart(img, frame, h.x, h.y, "", x_label, y_label);
  const double sat = double(saturationCount(h.counts, kLabelsPlotPmax));
  const double dx = (h.x.hi - h.x.lo) / h.bins, dy = (h.y.hi - h.y.lo) / h.bins;
  for (int ix = 0; ix < h.bins; ++ix) {
    for (int iy = 0; iy < h.bins; ++iy) {
      const int64_t c = h.at(ix, iy);
      if (c == 0) continue;
      chart.fill(h.x.lo + ix * dx, h.y.lo + iy * dy, h.x.lo + (ix + 1) * dx, h.y.lo + (iy + 1) * dy,
                 plot::blues(std::min(1.0, double(c) / sat)));
    }
  }
}

Histogram2d histogramOf(const std::vector<LabelBox>& boxes, const std::function<double(const LabelBox&)>& fx,
                        const std::function<double(const LabelBox&)>& fy) {
  std::vector<double> xs, ys;
  xs.reserve(boxes.size());
  ys.reserve(boxes.size());
  for (const auto& b : boxes) xs.push_back(fx(b)), ys.push_back(fy(b));
  return histogram2d(xs, ys, kLabelsPlotBins);
}

}  // namespace

Histogram2d histogram2d(const std::vector<double>& xs, const std::vector<double>& ys, int bins) {
  Histogram2d h;
  h.bins = std::max(1, bins);
  h.x = edgesOf(xs);
  h.y = edgesOf(ys);
  h.counts.assign(size_t(h.bins) * size_t(h.bins), 0);
  for (size_t i = 0; i < std::min(xs.size(), ys.size()); ++i)
    ++h.counts[size_t(binOf(xs[i], h.x, h.bins)) * size_t(h.bins) + size_t(binOf(ys[i], h.y, h.bins))];
  return h;
}

int64_t saturationCount(const std::vector<int64_t>& counts, double pmax) {
  std::vector<int64_t> sorted(counts);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  int64_t total = 0;
  for (const int64_t c : sorted) total += c;
  if (total == 0) return 1;
  int64_t cum = 0;
  for (const int64_t c : sorted) {
    cum += c;
    if (double(cum) / double(total) >= 1.0 - pmax) return std::max<int64_t>(1, c);
  }
  return std::max<int64_t>(1, sorted.back());
}

cv::Rect labelsPanel(int k) {
  const int half = kLabelsPlotSide / 2;
  return {(k % 2) * half, (k / 2) * half, half, half};
}

cv::Rect labelsOutlineArea() {
  const cv::Rect p = labelsPanel(1);
  const int margin = 20, side = std::min(p.width, p.height) - 2 * margin;
  return {p.x + (p.width - side) / 2, p.y + (p.height - side) / 2, side, side};
}

std::vector<std::string> labelsBarNames(int nc, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  if (nc <= 0 || nc >= kLabelsPlotMaxNames) return out;
  for (int c = 0; c < nc; ++c) out.push_back(className(names, c));
  return out;
}

cv::Mat renderLabelsPlot(const std::vector<LabelBox>& boxes, int nc, const std::vector<std::string>& names) {
  cv::Mat img(kLabelsPlotSide, kLabelsPlotSide, CV_8UC3, cv::Scalar::all(255));
  nc = std::max(nc, 1);
  for (const auto& b : boxes) nc = std::max(nc, b.cls + 1);  // a label past the names still shows

  // Instances per class: bars 0.8 wide (Ultralytics' rwidth) in the class colours, matplotlib's 5% margins.
  std::vector<int64_t> per_class(size_t(nc), 0);
  for (const auto& b : boxes)
    if (b.cls >= 0) ++per_class[size_t(b.cls)];
  const int64_t most = *std::max_element(per_class.begin(), per_class.end());
  const std::vector<std::string> bar_names = labelsBarNames(nc, names);
  const plot::Range bx{-0.5 - 0.05 * nc, nc - 0.5 + 0.05 * nc, 1};
  const plot::Range by{0, std::max<double>(1.0, double(most)) * 1.05};
  plot::Chart bars(img, labelsPanel(0), bx, by, "", bar_names.empty() ? "classes" : "", "instances",
                   bar_names);
  for (int c = 0; c < nc; ++c)
    if (per_class[size_t(c)] > 0)
      bars.fill(c - 0.4, 0, c + 0.4, double(per_class[size_t(c)]), classColour(c));

  // The shapes: each box centred on one square canvas, one pixel wide, in its class colour.
  const cv::Rect o = labelsOutlineArea();
  const double s = o.width - 1;
  for (size_t i = 0; i < std::min(boxes.size(), kLabelsPlotOutlines); ++i) {
    const LabelBox& b = boxes[i];
    const cv::Point p1(o.x + int(std::lround((0.5 - b.w / 2) * s)),
                       o.y + int(std::lround((0.5 - b.h / 2) * s)));
    const cv::Point p2(o.x + int(std::lround((0.5 + b.w / 2) * s)),
                       o.y + int(std::lround((0.5 + b.h / 2) * s)));
    cv::rectangle(img, p1, p2, classColour(b.cls), 1, cv::LINE_8);
  }

  drawHistogram(img, labelsPanel(2),
                histogramOf(
                    boxes, [](const LabelBox& b) { return double(b.cx); },
                    [](const LabelBox& b) { return double(b.cy); }),
                "x", "y");
  drawHistogram(img, labelsPanel(3),
                histogramOf(
                    boxes, [](const LabelBox& b) { return double(b.w); },
                    [](const LabelBox& b) { return double(b.h); }),
                "width", "height");
  return img;
}

std::vector<LabelBox> splitBoxes(const ScannedSplit& split) {
  std::vector<LabelBox> out;
  for (const auto& im : split.images) out.insert(out.end(), im.boxes.begin(), im.boxes.end());
  return out;
}

}  // namespace ywb
