// A box's motion as ByteTrack and BoT-SORT model it: a constant-velocity Kalman filter over four box
// measurements and their velocities, with noise proportional to the box's size. Thread rules: a value type;
// one thread per object.
#pragma once
#include <opencv2/core/matx.hpp>

namespace ywb::track {

/// What the filter measures. Xyah (ByteTrack): centre x, centre y, aspect (width / height), height, every
/// noise proportional to the height. Xywh (BoT-SORT): centre x, centre y, width, height, the noise of x and
/// the width proportional to the width, of y and the height to the height.
enum class BoxForm { Xyah, Xywh };

class KalmanBox {
 public:
  using State = cv::Matx<double, 8, 1>;
  using Cov = cv::Matx<double, 8, 8>;

  /// Starts at `z` at rest: position standard deviations 2/20 of the size (the aspect's 0.01), velocity ones
  /// 10/160 of it (the aspect's 1e-5).
  KalmanBox(BoxForm form, const cv::Vec4d& z);

  /// The measurement of the box with corners (x1, y1) and (x2, y2), in `form`.
  static cv::Vec4d measure(BoxForm form, double x1, double y1, double x2, double y2);
  /// The filtered box's corners (x1, y1, x2, y2).
  cv::Vec4d corners() const;

  /// One frame ahead: position += velocity; process noise with standard deviations 1/20 of the size for the
  /// position (the aspect's 0.01) and 1/160 for the velocity (the aspect's 1e-5).
  void predict();
  /// Corrects with a measured box; the measurement noise is 1/20 of the predicted size (the aspect's 0.1).
  void update(const cv::Vec4d& z);
  /// A lost track's box keeps its position's motion but not its change of size: ByteTrack zeroes the
  /// height's velocity, BoT-SORT the width's and the height's.
  void stopGrowth();
  /// Moves the state with the camera: `m` = [R | t] takes the previous frame's pixels to this frame's; R
  /// turns each pair of the state (the centre, the two size terms, and their velocities), t shifts the
  /// centre, and the covariance turns with them (as BoT-SORT compensates).
  void warp(const cv::Matx23d& m);

  BoxForm form() const { return form_; }
  const State& state() const { return x_; }
  const Cov& covariance() const { return p_; }

 private:
  // The standard deviation of component i (0-3: a measured term, 4-7 its velocity) for `weight` of the size.
  double scaled(int i, double weight, double aspect_sd) const;

  BoxForm form_;
  State x_;
  Cov p_;
};

}  // namespace ywb::track
