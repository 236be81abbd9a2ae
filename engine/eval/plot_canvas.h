// Line charts and heat maps drawn with OpenCV, for the plots a run folder gets (confusion matrices, PR and
// confidence curves, results.png). Debian's plotting libraries (PLplot and the like) pull in GTK, wxWidgets
// and Qt 5; the charts here need axes, ticks, lines and legends only.
// Thread rules: a Chart draws on one image from one thread; the free functions are reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ywb::plot {

struct Range {
  double lo = 0, hi = 1;
  double min_step = 0;  ///< ticks no closer than this (1 for epochs)
};

/// Tick values for a range: steps of 1, 2 or 5 times a power of ten, about `target` of them, inside it.
std::vector<double> niceTicks(Range r, int target = 6);
/// A range holding every finite value, widened by `pad` of its span on both sides ({0, 1} when none).
Range valueRange(const std::vector<std::vector<double>>& series, double pad = 0.05);
/// A tick's text: as few decimals as the step needs.
std::string tickText(double value, double step);

/// Matplotlib's default colour cycle (tab10), colour k of it (0: blue #1f77b4, 1: orange #ff7f0e, ...), BGR.
cv::Scalar cycleColour(int k);

/// Matplotlib's "Blues" map from white-blue (0) to dark blue (1), BGR.
cv::Scalar blues(double v);

/// Text of `scale` (Hershey simplex) turned 90 degrees counter-clockwise, centred on `centre`.
void putTextVertical(cv::Mat& img, const std::string& text, cv::Point centre, double scale,
                     cv::Scalar colour);
/// Text centred on `centre`.
void putTextCentred(cv::Mat& img, const std::string& text, cv::Point centre, double scale, cv::Scalar colour,
                    int thickness = 1);

/// Axes with a title, labelled ticks and a frame, in `frame` of a BGR image; data drawn with line() lands at
/// toPixel() of its values. With `x_names`, the x axis is categorical: a tick at 0, 1, ... n-1 each, labelled
/// with its name turned 90 degrees (as matplotlib's rotation=90), instead of numbers.
class Chart {
 public:
  Chart(cv::Mat& image, cv::Rect frame, Range x, Range y, const std::string& title,
        const std::string& x_label, const std::string& y_label, const std::vector<std::string>& x_names = {});
  /// The data area inside `frame` (the rule the constructor uses; tests read plots back with it): the
  /// bottom margin grows by the longest of `x_names`.
  static cv::Rect plotArea(cv::Rect frame, const std::vector<std::string>& x_names = {});
  cv::Rect area() const { return area_; }
  cv::Point2d toPixel(double x, double y) const;
  /// A polyline through the finite points (a non-finite value breaks the line); `dots` marks each point.
  void line(const std::vector<double>& xs, const std::vector<double>& ys, cv::Scalar colour,
            int thickness = 1, bool dots = false);
  /// Fills the data rectangle between (x0, y0) and (x1, y1), clipped to inside the frame's border.
  void fill(double x0, double y0, double x1, double y1, cv::Scalar colour);
  enum class Place { TopRight, Outside };
  /// Entries (text, colour) in a box at the data area's top right, or outside it to the right of its top.
  void legend(const std::vector<std::pair<std::string, cv::Scalar>>& entries, Place place = Place::TopRight);

 private:
  cv::Mat& img_;
  cv::Rect area_;
  Range x_, y_;
};

}  // namespace ywb::plot
