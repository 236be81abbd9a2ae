#include "data/random_perspective.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace ywb {
namespace {
// What a warp shows where it reaches past its source (Ultralytics' border value).
const cv::Scalar kPad = cv::Scalar::all(114);
}  // namespace

cv::Matx33d perspectiveMatrix(const PerspectiveDraws& d, cv::Size in, cv::Size out) {
  constexpr double kPi = 3.14159265358979323846;
  cv::Matx33d C = cv::Matx33d::eye();
  C(0, 2) = -in.width / 2.0;
  C(1, 2) = -in.height / 2.0;
  cv::Matx33d P = cv::Matx33d::eye();
  P(2, 0) = d.perspective_x;
  P(2, 1) = d.perspective_y;
  const double a = d.degrees * kPi / 180, s = d.scale;
  // cv2.getRotationMatrix2D(center=(0,0), angle, scale): [[s cos, s sin], [-s sin, s cos]] (angle
  // counter-clockwise on screen, whose y axis points down).
  cv::Matx33d R = cv::Matx33d::eye();
  R(0, 0) = s * std::cos(a), R(0, 1) = s * std::sin(a);
  R(1, 0) = -s * std::sin(a), R(1, 1) = s * std::cos(a);
  cv::Matx33d S = cv::Matx33d::eye();
  S(0, 1) = std::tan(d.shear_x * kPi / 180);
  S(1, 0) = std::tan(d.shear_y * kPi / 180);
  cv::Matx33d T = cv::Matx33d::eye();
  T(0, 2) = d.translate_x * out.width;
  T(1, 2) = d.translate_y * out.height;
  return T * S * R * P * C;
}

cv::Matx33d perspectiveMatrixFloat32(const PerspectiveDraws& d, cv::Size in, cv::Size out) {
  constexpr double kPi = 3.14159265358979323846;
  cv::Matx33f C = cv::Matx33f::eye();
  C(0, 2) = float(-in.width / 2.0);
  C(1, 2) = float(-in.height / 2.0);
  cv::Matx33f P = cv::Matx33f::eye();
  P(2, 0) = float(d.perspective_x);
  P(2, 1) = float(d.perspective_y);
  // cv2.getRotationMatrix2D computes in double; NumPy stores the result into the float32 R.
  const double a = d.degrees * kPi / 180, alpha = std::cos(a) * d.scale, beta = std::sin(a) * d.scale;
  cv::Matx33f R = cv::Matx33f::eye();
  R(0, 0) = float(alpha), R(0, 1) = float(beta);
  R(1, 0) = float(-beta), R(1, 1) = float(alpha);
  cv::Matx33f S = cv::Matx33f::eye();
  S(0, 1) = float(std::tan(d.shear_x * kPi / 180));
  S(1, 0) = float(std::tan(d.shear_y * kPi / 180));
  cv::Matx33f T = cv::Matx33f::eye();
  T(0, 2) = float(d.translate_x * out.width);
  T(1, 2) = float(d.translate_y * out.height);
  const cv::Matx33f m = T * S * R * P * C;
  cv::Matx33d md;
  for (int i = 0; i < 9; ++i) md.val[i] = double(m.val[i]);
  return md;
}

cv::Matx33d drawPerspective(const AugmentParams& hyp, Rng& rng, cv::Size in, cv::Size out, double* scale) {
  const PerspectiveDraws d = drawPerspectiveParams(hyp, rng);
  if (scale) *scale = d.scale;
  return perspectiveMatrix(d, in, out);
}

bool isProjective(const cv::Matx33d& m) {
  return m(2, 0) != 0 || m(2, 1) != 0 || m(2, 2) != 1;
}

std::vector<PixelBox> transformBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes, cv::Size out) {
  std::vector<PixelBox> res;
  res.reserve(boxes.size());
  const bool proj = isProjective(m);
  for (const auto& b : boxes) {
    const double xs[4] = {b.x1, b.x2, b.x2, b.x1}, ys[4] = {b.y1, b.y2, b.y1, b.y2};
    double x1 = 1e30, y1 = 1e30, x2 = -1e30, y2 = -1e30;
    for (int k = 0; k < 4; ++k) {
      double x = m(0, 0) * xs[k] + m(0, 1) * ys[k] + m(0, 2);
      double y = m(1, 0) * xs[k] + m(1, 1) * ys[k] + m(1, 2);
      if (proj) {
        const double z = m(2, 0) * xs[k] + m(2, 1) * ys[k] + m(2, 2);
        x /= z;
        y /= z;
      }
      x1 = std::min(x1, x), x2 = std::max(x2, x), y1 = std::min(y1, y), y2 = std::max(y2, y);
    }
    PixelBox t;
    t.cls = b.cls;
    t.x1 = float(std::clamp(x1, 0.0, double(out.width)));
    t.x2 = float(std::clamp(x2, 0.0, double(out.width)));
    t.y1 = float(std::clamp(y1, 0.0, double(out.height)));
    t.y2 = float(std::clamp(y2, 0.0, double(out.height)));
    res.push_back(t);
  }
  return res;
}

bool boxCandidate(const PixelBox& before, const PixelBox& after, double scale, double wh_thr, double ar_thr,
                  double area_thr) {
  constexpr double eps = 1e-16;
  const double w1 = before.width() * scale, h1 = before.height() * scale;
  const double w2 = after.width(), h2 = after.height();
  const double ar = std::max(w2 / (h2 + eps), h2 / (w2 + eps));
  return w2 > wh_thr && h2 > wh_thr && w2 * h2 / (w1 * h1 + eps) > area_thr && ar < ar_thr;
}

std::vector<PixelBox> warpBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes, cv::Size out,
                                double scale) {
  const std::vector<PixelBox> moved = transformBoxes(m, boxes, out);
  std::vector<PixelBox> kept;
  kept.reserve(moved.size());
  for (size_t i = 0; i < moved.size(); ++i) {
    if (boxCandidate(boxes[i], moved[i], scale)) kept.push_back(moved[i]);
  }
  return kept;
}

cv::Mat warpImage(const cv::Mat& src, const cv::Matx33d& m, cv::Size out) {
  cv::Mat dst;
  if (isProjective(m)) {
    cv::warpPerspective(src, dst, cv::Mat(m), out, cv::INTER_LINEAR, cv::BORDER_CONSTANT, kPad);
  } else {
    const cv::Matx23d a(m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2));
    cv::warpAffine(src, dst, cv::Mat(a), out, cv::INTER_LINEAR, cv::BORDER_CONSTANT, kPad);
  }
  return dst;
}

bool cropResizeFor(const cv::Matx33d& m, cv::Size out, int max_side, CropResize* r) {
  if (isProjective(m) || m(0, 1) != 0 || m(1, 0) != 0 || !(m(0, 0) > 0) || !(m(1, 1) > 0)) return false;
  // Output x = s * source x + t, so the output's [0, W) shows the source's [-t / s, (W - t) / s).
  const double w = std::round(out.width / m(0, 0)), h = std::round(out.height / m(1, 1));
  if (w < 1 || h < 1 || w > max_side || h > max_side) return false;
  const double x0 = std::round(-m(0, 2) / m(0, 0)), y0 = std::round(-m(1, 2) / m(1, 1));
  if (std::abs(x0) > 1e7 || std::abs(y0) > 1e7) return false;
  r->crop = cv::Rect(int(x0), int(y0), int(w), int(h));
  const double sx = out.width / w, sy = out.height / h;
  r->m = cv::Matx33d(sx, 0, -sx * x0, 0, sy, -sy * y0, 0, 0, 1);
  r->scale = sx;
  return true;
}

cv::Mat cropPadded(const cv::Mat& src, cv::Rect crop) {
  const cv::Rect inside = crop & cv::Rect(0, 0, src.cols, src.rows);
  if (inside == crop) return src(crop);
  cv::Mat res(crop.size(), src.type(), kPad);
  if (!inside.empty()) src(inside).copyTo(res(inside - crop.tl()));
  return res;
}

cv::Mat resizeCrop(const cv::Mat& crop_image, cv::Size out) {
  cv::Mat dst;
  cv::resize(crop_image, dst, out, 0, 0, cv::INTER_LINEAR);
  return dst;
}

}  // namespace ywb
