#include "track/kalman_box.h"

#include <opencv2/core.hpp>

namespace ywb::track {
namespace {

// The noise scales of ByteTrack's filter (and DeepSORT's before it): fractions of the box's height.
constexpr double kPositionWeight = 1.0 / 20;
constexpr double kVelocityWeight = 1.0 / 160;

}  // namespace

KalmanBox::KalmanBox(const BoxXyah& z) : x_(State::zeros()), p_(Cov::zeros()) {
  x_(0) = z.cx, x_(1) = z.cy, x_(2) = z.a, x_(3) = z.h;
  const double sd[8] = {
      2 * kPositionWeight * z.h,  2 * kPositionWeight * z.h,  1e-2, 2 * kPositionWeight * z.h,
      10 * kVelocityWeight * z.h, 10 * kVelocityWeight * z.h, 1e-5, 10 * kVelocityWeight * z.h};
  for (int i = 0; i < 8; ++i) p_(i, i) = sd[i] * sd[i];
}

void KalmanBox::predict() {
  const double h = x_(3);
  const double sd[8] = {kPositionWeight * h, kPositionWeight * h, 1e-2, kPositionWeight * h,
                        kVelocityWeight * h, kVelocityWeight * h, 1e-5, kVelocityWeight * h};
  Cov f = Cov::eye();
  for (int i = 0; i < 4; ++i) f(i, i + 4) = 1;
  Cov q = Cov::zeros();
  for (int i = 0; i < 8; ++i) q(i, i) = sd[i] * sd[i];
  x_ = f * x_;
  p_ = f * p_ * f.t() + q;
}

void KalmanBox::update(const BoxXyah& z) {
  // Measurement: the first four state components. S = H P H' + R; K = P H' S^-1 (S is symmetric positive
  // definite: solved by Cholesky).
  const double h = x_(3);
  const double sd[4] = {kPositionWeight * h, kPositionWeight * h, 1e-1, kPositionWeight * h};
  cv::Matx<double, 4, 4> s;
  cv::Matx<double, 8, 4> ph;  // P H'
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) ph(i, j) = p_(i, j);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) s(i, j) = p_(i, j) + (i == j ? sd[i] * sd[i] : 0);
  // K' = S^-1 (P H')' since S is symmetric.
  cv::Matx<double, 4, 8> kt;
  cv::solve(s, ph.t(), kt, cv::DECOMP_CHOLESKY);
  const cv::Matx<double, 4, 1> innovation(z.cx - x_(0), z.cy - x_(1), z.a - x_(2), z.h - x_(3));
  x_ = x_ + kt.t() * innovation;
  p_ = p_ - kt.t() * s * kt;
}

}  // namespace ywb::track
