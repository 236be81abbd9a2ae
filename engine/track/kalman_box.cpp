#include "track/kalman_box.h"

#include <opencv2/core.hpp>

namespace ywb::track {
namespace {

// The noise scales of ByteTrack's and BoT-SORT's filters (and DeepSORT's before them): fractions of the box's
// size.
constexpr double kPositionWeight = 1.0 / 20;
constexpr double kVelocityWeight = 1.0 / 160;

}  // namespace

double KalmanBox::scaled(int i, double weight, double aspect_sd) const {
  const int c = i % 4;
  if (form_ == BoxForm::Xyah) return c == 2 ? aspect_sd : weight * x_(3);
  return weight * (c % 2 == 0 ? x_(2) : x_(3));  // x and w with the width, y and h with the height
}

KalmanBox::KalmanBox(BoxForm form, const cv::Vec4d& z) : form_(form), x_(State::zeros()), p_(Cov::zeros()) {
  for (int i = 0; i < 4; ++i) x_(i) = z[i];
  for (int i = 0; i < 8; ++i) {
    const double sd = i < 4 ? scaled(i, 2 * kPositionWeight, 1e-2) : scaled(i, 10 * kVelocityWeight, 1e-5);
    p_(i, i) = sd * sd;
  }
}

cv::Vec4d KalmanBox::measure(BoxForm form, double x1, double y1, double x2, double y2) {
  const double w = x2 - x1, h = y2 - y1;
  return {x1 + w / 2, y1 + h / 2, form == BoxForm::Xyah ? (h > 0 ? w / h : 0) : w, h};
}

cv::Vec4d KalmanBox::corners() const {
  const double h = x_(3), w = form_ == BoxForm::Xyah ? x_(2) * h : x_(2);
  return {x_(0) - w / 2, x_(1) - h / 2, x_(0) + w / 2, x_(1) + h / 2};
}

void KalmanBox::predict() {
  Cov q = Cov::zeros();
  for (int i = 0; i < 8; ++i) {
    const double sd = i < 4 ? scaled(i, kPositionWeight, 1e-2) : scaled(i, kVelocityWeight, 1e-5);
    q(i, i) = sd * sd;
  }
  Cov f = Cov::eye();
  for (int i = 0; i < 4; ++i) f(i, i + 4) = 1;
  x_ = f * x_;
  p_ = f * p_ * f.t() + q;
}

void KalmanBox::update(const cv::Vec4d& z) {
  // Measurement: the first four state components. S = H P H' + R; K = P H' S^-1 (S is symmetric positive
  // definite: solved by Cholesky).
  cv::Matx<double, 4, 4> s;
  cv::Matx<double, 8, 4> ph;  // P H'
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) ph(i, j) = p_(i, j);
  for (int i = 0; i < 4; ++i) {
    const double sd = scaled(i, kPositionWeight, 1e-1);
    for (int j = 0; j < 4; ++j) s(i, j) = p_(i, j) + (i == j ? sd * sd : 0);
  }
  // K' = S^-1 (P H')' since S is symmetric.
  cv::Matx<double, 4, 8> kt;
  cv::solve(s, ph.t(), kt, cv::DECOMP_CHOLESKY);
  const cv::Matx<double, 4, 1> innovation(z[0] - x_(0), z[1] - x_(1), z[2] - x_(2), z[3] - x_(3));
  x_ = x_ + kt.t() * innovation;
  p_ = p_ - kt.t() * s * kt;
}

void KalmanBox::stopGrowth() {
  x_(7) = 0;
  if (form_ == BoxForm::Xywh) x_(6) = 0;
}

void KalmanBox::warp(const cv::Matx23d& m) {
  Cov r = Cov::zeros();  // R on each of the four pairs of the state
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) r(2 * k + i, 2 * k + j) = m(i, j);
  x_ = r * x_;
  x_(0) += m(0, 2), x_(1) += m(1, 2);
  p_ = r * p_ * r.t();
}

}  // namespace ywb::track
