// A box's motion as ByteTrack models it: a constant-velocity Kalman filter over (centre x, centre y,
// aspect w/h, height) and their velocities, with noise proportional to the box's height. Thread rules: a
// value type; one thread per object.
#pragma once
#include <opencv2/core/matx.hpp>

namespace ywb::track {

/// A box as the filter measures it: centre, aspect ratio (width / height) and height, in pixels.
struct BoxXyah {
  double cx = 0, cy = 0, a = 0, h = 0;
};

class KalmanBox {
 public:
  using State = cv::Matx<double, 8, 1>;
  using Cov = cv::Matx<double, 8, 8>;

  /// Starts at `z` at rest: position standard deviations 2/20 of the height (aspect 0.01), velocity ones
  /// 10/160 of it (aspect 1e-5).
  explicit KalmanBox(const BoxXyah& z);

  /// One frame ahead: position += velocity; process noise with standard deviations 1/20 of the height for
  /// the position (0.01 for the aspect) and 1/160 for the velocity (1e-5 for the aspect's).
  void predict();
  /// Corrects with a measured box; the measurement noise is 1/20 of the predicted height (0.1 for the
  /// aspect).
  void update(const BoxXyah& z);
  /// A lost track's box keeps its position's motion but not its growth: the height's velocity to zero.
  void stopGrowth() { x_(7) = 0; }

  BoxXyah box() const { return {x_(0), x_(1), x_(2), x_(3)}; }
  const State& state() const { return x_; }
  const Cov& covariance() const { return p_; }

 private:
  State x_;
  Cov p_;
};

}  // namespace ywb::track
