#include "eval/results_plot.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/error.h"
#include "eval/metric_plots.h"
#include "eval/plot_canvas.h"

namespace ywb {
namespace {

const cv::Size kPanel(440, 330);

bool validationColumn(const std::string& name) {
  return name.rfind("val/", 0) == 0 || name.rfind("metrics/", 0) == 0;
}

}  // namespace

const std::vector<std::string>& resultsPlotColumns() {
  static const std::vector<std::string> cols = {
      "train/box_loss", "train/cls_loss", "train/dfl_loss", "metrics/precision(B)", "metrics/recall(B)",
      "val/box_loss",   "val/cls_loss",   "val/dfl_loss",   "metrics/mAP50(B)",     "metrics/mAP50-95(B)"};
  return cols;
}

cv::Rect resultsPanel(int k) {
  return {(k % 5) * kPanel.width, (k / 5) * kPanel.height, kPanel.width, kPanel.height};
}

cv::Scalar resultsValueColour() {
  return plot::cycleColour(0);
}

std::vector<double> smoothSeries(const std::vector<double>& values, double sigma) {
  const int n = int(values.size());
  const int radius = int(std::ceil(4 * sigma));  // scipy's truncate=4
  std::vector<double> out(values.size(), NAN);
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(values[size_t(i)])) continue;
    double sum = 0, weight = 0;
    for (int d = -radius; d <= radius; ++d) {
      int j = i + d;
      // scipy's 'reflect' edges (d c b a | a b c d | d c b a)
      while (j < 0 || j >= n) j = j < 0 ? -j - 1 : 2 * n - j - 1;
      const double v = values[size_t(j)];
      if (!std::isfinite(v)) continue;
      const double w = std::exp(-0.5 * d * d / (sigma * sigma));
      sum += w * v;
      weight += w;
    }
    out[size_t(i)] = sum / weight;
  }
  return out;
}

cv::Mat renderResults(const std::vector<ResultsRow>& rows) {
  const auto& names = resultsColumns();
  const auto& shown = resultsPlotColumns();
  cv::Mat img(kPanel.height * 2, kPanel.width * 5, CV_8UC3, cv::Scalar::all(255));
  std::vector<double> epochs;
  std::vector<std::vector<double>> values(names.size());
  for (const auto& r : rows) {
    epochs.push_back(r.epoch);
    const std::vector<double> v = resultsRowValues(r);
    for (size_t c = 0; c < names.size() && c < v.size(); ++c)
      values[c].push_back(validationColumn(names[c]) && !r.validated() ? NAN : v[c]);
  }
  plot::Range x = rows.empty()                      ? plot::Range{0, 1}
                  : epochs.front() == epochs.back() ? plot::Range{epochs.front() - 1, epochs.back() + 1}
                                                    : plot::valueRange({epochs}, 0.03);
  x.min_step = 1;  // whole epochs
  for (size_t k = 0; k < shown.size(); ++k) {
    const auto it = std::find(names.begin(), names.end(), shown[k]);
    if (it == names.end()) fail("results.png: results.csv has no column ", shown[k]);
    const std::vector<double>& ys = values[size_t(it - names.begin())];
    const std::vector<double> smooth = smoothSeries(ys, 3.0);
    plot::Chart chart(img, resultsPanel(int(k)), x, plot::valueRange({ys}), shown[k], "epoch", "");
    chart.line(epochs, ys, resultsValueColour(), 1, /*dots=*/true);
    chart.line(epochs, smooth, plot::cycleColour(1), 2);
    if (k == 0) chart.legend({{"results", resultsValueColour()}, {"smooth", plot::cycleColour(1)}});
  }
  return img;
}

std::string writeResultsPlot(const std::string& results_csv) {
  const std::filesystem::path csv(results_csv);
  return writePlotImage(renderResults(readResults(results_csv)), csv.parent_path().string(),
                        resultsPlotStem());
}

}  // namespace ywb
