#include "eval/metric_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/atomic_file.h"
#include "core/class_name.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "eval/plot_canvas.h"

namespace ywb {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kInk(40, 40, 40);
constexpr int kMaxClassLegend =
    20;  // per-class legend entries and colours up to this many classes (Ultralytics)
constexpr int kMaxCellNumbers = 30;  // numbers in the cells below this many classes (Ultralytics)
constexpr int kMaxTickNames = 99;    // class names on the axes below this many rows (Ultralytics)

std::vector<std::string> axisNames(const ConfusionMatrix& m, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (int c = 0; c < m.num_classes; ++c) out.push_back(className(names, c));
  out.push_back("background");
  return out;
}

double nameScale(int cell) {
  return std::clamp(cell / 40.0, 0.3, 0.5);
}

std::string fixed(double v, int decimals) {
  char s[32];
  std::snprintf(s, sizeof s, "%.*f", decimals, v);
  return s;
}

}  // namespace

ConfusionLayout confusionLayout(const ConfusionMatrix& m, const std::vector<std::string>& names) {
  ConfusionLayout l;
  l.n = m.num_classes + 1;
  l.cell = std::clamp(800 / l.n, 12, 64);
  int label = 0;
  if (l.n < kMaxTickNames) {
    int base = 0;
    for (const auto& s : axisNames(m, names))
      label = std::max(label, cv::getTextSize(s, kFont, nameScale(l.cell), 1, &base).width);
  }
  const int left = 40 + label + 8, bottom = 40 + label + 8, top = 50, right = 110;
  l.grid = {left, top};
  l.image = {left + l.n * l.cell + right, top + l.n * l.cell + bottom};
  return l;
}

cv::Mat renderConfusionMatrix(const ConfusionMatrix& m, const std::vector<std::string>& names,
                              bool normalized) {
  const ConfusionLayout l = confusionLayout(m, names);
  cv::Mat img(l.image, CV_8UC3, cv::Scalar::all(255));
  const int n = l.n;
  std::vector<double> value(size_t(n) * n, 0.0);
  double top = 0;
  for (int col = 0; col < n; ++col) {
    double sum = 0;
    for (int row = 0; row < n; ++row) sum += double(m.at(row, col));
    for (int row = 0; row < n; ++row) {
      const double c = double(m.at(row, col));
      value[size_t(row) * n + col] = normalized ? (sum > 0 ? c / sum : 0.0) : c;
      top = std::max(top, value[size_t(row) * n + col]);
    }
  }
  const double scale_top = normalized ? 1.0 : std::max(1.0, top);
  const double text_scale = std::clamp(l.cell / 60.0, 0.28, 0.45);
  for (int row = 0; row < n; ++row) {
    for (int col = 0; col < n; ++col) {
      const double v = value[size_t(row) * n + col];
      if (v < 0.005) continue;  // blank, as Ultralytics leaves values below 0.005
      const double f = v / scale_top;
      const cv::Rect cell = l.cellRect(row, col);
      cv::rectangle(img, cell, plot::blues(f), cv::FILLED);
      if (n - 1 < kMaxCellNumbers) {
        plot::putTextCentred(img, normalized ? fixed(v, 2) : fixed(v, 0), (cell.tl() + cell.br()) / 2,
                             text_scale, f > 0.5 ? cv::Scalar::all(255) : kInk);
      }
    }
  }
  const cv::Rect grid(l.grid, cv::Size(n * l.cell, n * l.cell));
  cv::rectangle(img, grid, cv::Scalar::all(200), 1);
  if (n < kMaxTickNames) {
    const std::vector<std::string> labels = axisNames(m, names);
    const double s = nameScale(l.cell);
    int base = 0;
    for (int k = 0; k < n; ++k) {
      const cv::Size ts = cv::getTextSize(labels[size_t(k)], kFont, s, 1, &base);
      const int mid = k * l.cell + l.cell / 2;
      cv::putText(img, labels[size_t(k)], {grid.x - 6 - ts.width, grid.y + mid + ts.height / 2}, kFont, s,
                  kInk, 1, cv::LINE_AA);
      plot::putTextVertical(img, labels[size_t(k)], {grid.x + mid, grid.br().y + 6 + ts.width / 2}, s, kInk);
    }
  }
  plot::putTextCentred(img, normalized ? "Confusion Matrix Normalized" : "Confusion Matrix",
                       {grid.x + grid.width / 2, 24}, 0.6, kInk);
  plot::putTextCentred(img, "True", {grid.x + grid.width / 2, img.rows - 16}, 0.5, kInk);
  plot::putTextVertical(img, "Predicted", {14, grid.y + grid.height / 2}, 0.5, kInk);
  // The colour bar: its top is the largest value (1 when normalised), its bottom 0.
  const cv::Rect bar(grid.br().x + 24, grid.y, 18, grid.height);
  for (int y = 0; y < bar.height; ++y) {
    const double f = 1.0 - double(y) / std::max(1, bar.height - 1);
    cv::line(img, {bar.x, bar.y + y}, {bar.br().x - 1, bar.y + y}, plot::blues(f));
  }
  cv::rectangle(img, bar, cv::Scalar::all(200), 1);
  cv::putText(img, normalized ? "1.0" : fixed(scale_top, 0), {bar.br().x + 5, bar.y + 10}, kFont, 0.42, kInk,
              1, cv::LINE_AA);
  cv::putText(img, "0", {bar.br().x + 5, bar.br().y}, kFont, 0.42, kInk, 1, cv::LINE_AA);
  return img;
}

cv::Size curvePlotSize() {
  return {1180, 700};
}

cv::Rect curveFrame() {
  return {0, 0, 900, curvePlotSize().height};  // the legend goes to the right of it
}

cv::Scalar meanCurveColour() {
  return plot::cycleColour(0);
}

namespace {

// One curve plot: per-class curves (coloured and listed up to 20 classes, grey past that), then the mean.
cv::Mat curvePlot(const std::vector<double>& xs, const std::vector<std::vector<double>>& per_class,
                  const std::vector<double>& mean, const std::vector<double>& class_values,
                  const std::string& mean_label, const std::vector<std::string>& names,
                  const std::string& title, const std::string& x_label, const std::string& y_label) {
  cv::Mat img(curvePlotSize(), CV_8UC3, cv::Scalar::all(255));
  plot::Chart chart(img, curveFrame(), {0, 1}, {0, 1}, title, x_label, y_label);
  const bool listed = int(per_class.size()) <= kMaxClassLegend;
  std::vector<std::pair<std::string, cv::Scalar>> legend;
  for (size_t c = 0; c < per_class.size(); ++c) {
    if (per_class[c].empty()) continue;  // no ground truth
    const cv::Scalar colour = listed ? classColour(int(c)) : cv::Scalar::all(190);
    chart.line(xs, per_class[c], colour, 1);
    if (listed) legend.emplace_back(className(names, int(c)) + " " + fixed(class_values[c], 3), colour);
  }
  chart.line(xs, mean, meanCurveColour(), 3);
  legend.emplace_back(mean_label, meanCurveColour());
  chart.legend(legend, plot::Chart::Place::Outside);
  return img;
}

}  // namespace

cv::Mat renderPrCurve(const DetectionResults& r, const std::vector<std::string>& names) {
  const MetricCurves& k = r.curves;
  std::vector<double> ap50(k.pr.size(), 0.0);
  for (const auto& c : r.per_class)
    if (size_t(c.cls) < ap50.size()) ap50[size_t(c.cls)] = c.ap50;
  return curvePlot(k.recall, k.pr, k.pr_mean, ap50, "all classes " + fixed(r.map50, 3) + " mAP@0.5", names,
                   "Precision-Recall Curve", "Recall", "Precision");
}

cv::Mat renderConfidenceCurve(const DetectionResults& r, const std::vector<std::string>& names,
                              ConfidenceCurve which) {
  const MetricCurves& k = r.curves;
  const auto& per = which == ConfidenceCurve::F1          ? k.f1
                    : which == ConfidenceCurve::Precision ? k.precision
                                                          : k.recall_at;
  const auto& mean = which == ConfidenceCurve::F1          ? k.f1_mean
                     : which == ConfidenceCurve::Precision ? k.precision_mean
                                                           : k.recall_mean;
  const std::string what = which == ConfidenceCurve::F1          ? "F1"
                           : which == ConfidenceCurve::Precision ? "Precision"
                                                                 : "Recall";
  size_t best = 0;
  for (size_t i = 1; i < mean.size(); ++i)
    if (mean[i] > mean[best]) best = i;
  std::vector<double> class_best(per.size(), 0.0);
  for (size_t c = 0; c < per.size(); ++c)
    for (const double v : per[c]) class_best[c] = std::max(class_best[c], v);
  const std::string label = mean.empty()
                                ? "all classes"
                                : "all classes " + fixed(mean[best], 2) + " at " +
                                      fixed(best < k.confidence.size() ? k.confidence[best] : 0.0, 3);
  return curvePlot(k.confidence, per, mean, class_best, label, names, what + "-Confidence Curve",
                   "Confidence", what);
}

std::string writePlotImage(const cv::Mat& bgr, const std::string& dir, const std::string& stem) {
  const bool png = canDecodeNonJpeg();
  const std::string path = (std::filesystem::path(dir) / (stem + (png ? ".png" : ".jpg"))).string();
  writeFileAtomic(path, png ? encodePng(bgr) : encodeJpeg(bgr, 95));
  return path;
}

const std::vector<std::string>& metricPlotStems() {
  static const std::vector<std::string> stems = {"confusion_matrix", "confusion_matrix_normalized",
                                                 "BoxPR_curve",      "BoxF1_curve",
                                                 "BoxP_curve",       "BoxR_curve"};
  return stems;
}

const char* resultsPlotStem() {
  return "results";
}

const char* labelsPlotFileName() {
  return "labels.jpg";
}

std::vector<std::string> writeMetricPlots(const DetectionResults& r, const std::vector<std::string>& names,
                                          const std::string& dir) {
  const cv::Mat pictures[] = {renderConfusionMatrix(r.confusion, names, false),
                              renderConfusionMatrix(r.confusion, names, true),
                              renderPrCurve(r, names),
                              renderConfidenceCurve(r, names, ConfidenceCurve::F1),
                              renderConfidenceCurve(r, names, ConfidenceCurve::Precision),
                              renderConfidenceCurve(r, names, ConfidenceCurve::Recall)};
  std::vector<std::string> out;
  for (size_t k = 0; k < metricPlotStems().size(); ++k)
    out.push_back(writePlotImage(pictures[k], dir, metricPlotStems()[k]));
  return out;
}

}  // namespace ywb
