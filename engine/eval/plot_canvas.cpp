#include "eval/plot_canvas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>

namespace ywb::plot {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kInk(40, 40, 40);
const cv::Scalar kGrid(225, 225, 225);
constexpr double kTickScale = 0.42, kLabelScale = 0.5, kTitleScale = 0.55;

}  // namespace

std::vector<double> niceTicks(Range r, int target) {
  std::vector<double> ticks;
  const double span = r.hi - r.lo;
  if (!(span > 0) || !std::isfinite(span)) return {r.lo};
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  step = std::max(step, r.min_step);
  const double eps = step * 1e-9;
  for (double t = std::ceil((r.lo - eps) / step) * step; t <= r.hi + eps; t += step)
    ticks.push_back(std::abs(t) < eps ? 0.0 : t);
  return ticks;
}

Range valueRange(const std::vector<std::vector<double>>& series, double pad) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : series)
    for (const double v : s)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) return {0, 1};
  if (hi - lo < 1e-12) {  // a flat series: a band around it
    const double d = std::max(std::abs(lo) * 0.05, 1e-3);
    return {lo - d, hi + d};
  }
  const double d = (hi - lo) * pad;
  return {lo - d, hi + d};
}

std::string tickText(double value, double step) {
  const int decimals = step >= 1 ? 0 : std::min(6, int(std::ceil(-std::log10(step) - 1e-9)));
  char s[32];
  std::snprintf(s, sizeof s, "%.*f", decimals, value);
  return s;
}

cv::Scalar cycleColour(int k) {
  static const cv::Scalar kRgb[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                                    {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                    {188, 189, 34},  {23, 190, 207}};
  const cv::Scalar& c = kRgb[((k % 10) + 10) % 10];
  return {c[2], c[1], c[0]};
}

cv::Scalar blues(double v) {
  // Matplotlib's Blues at 0, 0.25, 0.5, 0.75, 1 (RGB), linearly between them.
  static const double kStops[5][3] = {
      {247, 251, 255}, {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 48, 107}};
  v = std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, int(v));
  const double f = v - i;
  double rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = kStops[i][k] * (1 - f) + kStops[i + 1][k] * f;
  return {rgb[2], rgb[1], rgb[0]};
}

void putTextCentred(cv::Mat& img, const std::string& text, cv::Point centre, double scale, cv::Scalar colour,
                    int thickness) {
  int base = 0;
  const cv::Size ts = cv::getTextSize(text, kFont, scale, thickness, &base);
  cv::putText(img, text, cv::Point(centre.x - ts.width / 2, centre.y + ts.height / 2), kFont, scale, colour,
              thickness, cv::LINE_AA);
}

void putTextVertical(cv::Mat& img, const std::string& text, cv::Point centre, double scale,
                     cv::Scalar colour) {
  int base = 0;
  const cv::Size ts = cv::getTextSize(text, kFont, scale, 1, &base);
  cv::Mat strip(ts.height + base + 4, ts.width + 4, img.type(), cv::Scalar::all(255));
  cv::putText(strip, text, cv::Point(2, ts.height + 2), kFont, scale, colour, 1, cv::LINE_AA);
  cv::Mat turned;
  cv::rotate(strip, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
  cv::Rect at(centre.x - turned.cols / 2, centre.y - turned.rows / 2, turned.cols, turned.rows);
  const cv::Rect clipped = at & cv::Rect(0, 0, img.cols, img.rows);
  if (clipped.area() == 0) return;
  // Only the ink is copied, so the text may lie over lines.
  const cv::Mat src = turned(cv::Rect(clipped.x - at.x, clipped.y - at.y, clipped.width, clipped.height));
  cv::Mat mask;
  cv::cvtColor(src, mask, cv::COLOR_BGR2GRAY);
  cv::threshold(mask, mask, 250, 255, cv::THRESH_BINARY_INV);
  src.copyTo(img(clipped), mask);
}

namespace {

// The height the turned category names take below the axis (0 without names).
int namesHeight(const std::vector<std::string>& names) {
  int base = 0, longest = 0;
  for (const auto& n : names)
    longest = std::max(longest, cv::getTextSize(n, kFont, kTickScale, 1, &base).width);
  return names.empty() ? 0 : longest + 8;
}

}  // namespace

cv::Rect Chart::plotArea(cv::Rect frame, const std::vector<std::string>& x_names) {
  constexpr int left = 64, right = 16, top = 34;
  const int bottom = 50 + namesHeight(x_names);
  return {frame.x + left, frame.y + top, std::max(1, frame.width - left - right),
          std::max(1, frame.height - top - bottom)};
}

Chart::Chart(cv::Mat& image, cv::Rect frame, Range x, Range y, const std::string& title,
             const std::string& x_label, const std::string& y_label, const std::vector<std::string>& x_names)
    : img_(image), area_(plotArea(frame, x_names)), x_(x), y_(y) {
  const std::vector<double> yt = niceTicks(y);
  std::vector<double> xt;
  if (x_names.empty()) xt = niceTicks(x);
  for (size_t k = 0; k < x_names.size(); ++k) xt.push_back(double(k));
  const double xs = xt.size() > 1 ? xt[1] - xt[0] : 1, ys = yt.size() > 1 ? yt[1] - yt[0] : 1;
  const int names_h = namesHeight(x_names);
  for (size_t k = 0; k < xt.size(); ++k) {
    const double t = xt[k];
    const int px = int(std::lround(toPixel(t, y.lo).x));
    cv::line(img_, {px, area_.y}, {px, area_.br().y}, kGrid, 1);
    cv::line(img_, {px, area_.br().y}, {px, area_.br().y + 4}, kInk, 1);
    if (x_names.empty()) {
      putTextCentred(img_, tickText(t, xs), {px, area_.br().y + 14}, kTickScale, kInk);
    } else {  // the name's end at the tick, as matplotlib aligns a turned label
      int base = 0;
      const int w = cv::getTextSize(x_names[k], kFont, kTickScale, 1, &base).width;
      putTextVertical(img_, x_names[k], {px, area_.br().y + 8 + w / 2}, kTickScale, kInk);
    }
  }
  for (const double t : yt) {
    const int py = int(std::lround(toPixel(x.lo, t).y));
    cv::line(img_, {area_.x, py}, {area_.br().x, py}, kGrid, 1);
    cv::line(img_, {area_.x - 4, py}, {area_.x, py}, kInk, 1);
    const std::string s = tickText(t, ys);
    int base = 0;
    const cv::Size ts = cv::getTextSize(s, kFont, kTickScale, 1, &base);
    cv::putText(img_, s, {area_.x - 7 - ts.width, py + ts.height / 2}, kFont, kTickScale, kInk, 1,
                cv::LINE_AA);
  }
  cv::rectangle(img_, area_, kInk, 1);
  putTextCentred(img_, title, {area_.x + area_.width / 2, frame.y + 16}, kTitleScale, kInk, 1);
  putTextCentred(img_, x_label, {area_.x + area_.width / 2, area_.br().y + 36 + names_h}, kLabelScale, kInk);
  putTextVertical(img_, y_label, {frame.x + 12, area_.y + area_.height / 2}, kLabelScale, kInk);
}

cv::Point2d Chart::toPixel(double x, double y) const {
  const double fx = (x - x_.lo) / (x_.hi - x_.lo), fy = (y - y_.lo) / (y_.hi - y_.lo);
  return {area_.x + fx * (area_.width - 1), area_.y + (1 - fy) * (area_.height - 1)};
}

void Chart::line(const std::vector<double>& xs, const std::vector<double>& ys, cv::Scalar colour,
                 int thickness, bool dots) {
  // Drawn with 4 bits of sub-pixel precision, clipped to the data area.
  constexpr int kShift = 4;
  const auto fixed = [&](double x, double y) {
    const cv::Point2d p = toPixel(x, y);
    return cv::Point(int(std::lround(p.x * (1 << kShift))), int(std::lround(p.y * (1 << kShift))));
  };
  cv::Mat roi = img_(area_);
  const cv::Point off(area_.x << kShift, area_.y << kShift);
  bool have_prev = false;
  cv::Point prev;
  for (size_t i = 0; i < std::min(xs.size(), ys.size()); ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) {
      have_prev = false;
      continue;
    }
    const cv::Point p = fixed(xs[i], ys[i]) - off;
    if (have_prev) cv::line(roi, prev, p, colour, thickness, cv::LINE_AA, kShift);
    if (dots) cv::circle(roi, p, (thickness + 2) << kShift, colour, cv::FILLED, cv::LINE_AA, kShift);
    prev = p;
    have_prev = true;
  }
}

void Chart::fill(double x0, double y0, double x1, double y1, cv::Scalar colour) {
  const cv::Point2d a = toPixel(x0, y0), b = toPixel(x1, y1);
  const cv::Rect r(
      cv::Point(int(std::lround(std::min(a.x, b.x))), int(std::lround(std::min(a.y, b.y)))),
      cv::Point(int(std::lround(std::max(a.x, b.x))) + 1, int(std::lround(std::max(a.y, b.y))) + 1));
  const cv::Rect inside(area_.x + 1, area_.y + 1, area_.width - 2, area_.height - 2);
  const cv::Rect clipped = r & inside;
  if (clipped.area() > 0) cv::rectangle(img_, clipped, colour, cv::FILLED);
}

void Chart::legend(const std::vector<std::pair<std::string, cv::Scalar>>& entries, Place place) {
  if (entries.empty()) return;
  int base = 0, width = 0;
  const int row = 16;
  for (const auto& e : entries)
    width = std::max(width, cv::getTextSize(e.first, kFont, kTickScale, 1, &base).width);
  const cv::Size box(width + 38, int(entries.size()) * row + 8);
  const cv::Point at = place == Place::Outside ? cv::Point(area_.br().x + 12, area_.y)
                                               : cv::Point(area_.br().x - 8 - box.width, area_.y + 8);
  cv::rectangle(img_, cv::Rect(at, box), cv::Scalar::all(255), cv::FILLED);
  cv::rectangle(img_, cv::Rect(at, box), cv::Scalar::all(200), 1);
  for (size_t i = 0; i < entries.size(); ++i) {
    const int y = at.y + 4 + int(i) * row + row / 2;
    cv::line(img_, {at.x + 6, y}, {at.x + 28, y}, entries[i].second, 2, cv::LINE_AA);
    cv::putText(img_, entries[i].first, {at.x + 33, y + 5}, kFont, kTickScale, kInk, 1, cv::LINE_AA);
  }
}

}  // namespace ywb::plot
