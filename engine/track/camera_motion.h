// The camera's motion between consecutive video frames, as BoT-SORT compensates it ("GMC", global motion
// compensation): a similarity transform (rotation, uniform scale, shift) estimated from the frames alone,
// which moves every track's predicted box before it is matched. Thread rules: one object per video, used by
// one thread.
#pragma once
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "ywb/metrics.h"
#include "ywb/track.h"

namespace ywb::track {

/// Whether this build has OpenCV's video, calib3d and features2d modules, which every method but None needs.
bool cameraMotionBuilt();

/// Whether a tracker with these options estimates the camera's motion from the frames (BoT-SORT with a
/// gmc_method other than none).
inline bool compensatesCameraMotion(const TrackerOptions& o) {
  return o.type == TrackerType::BotSort && o.gmc_method != GmcMethod::None;
}

class CameraMotion {
 public:
  /// `downscale`: frames are shrunk by this whole factor before the points are found (BoT-SORT's 2).
  /// Throws ywb::Error for a method this build lacks (cameraMotionBuilt()).
  explicit CameraMotion(GmcMethod method, int downscale = 2);
  ~CameraMotion();

  /// The 2 x 3 map taking the previous frame's pixels to this frame's, in this frame's full-size pixels: the
  /// identity for the first frame, for GmcMethod::None, for a featureless frame and when too few points
  /// match (fewer than 5) or the estimate fails. `frame`: the video's BGR (or grey) frame. `boxes` (the
  /// frame's detections) are kept out of the keypoints of orb and sift, so moving objects do not count
  /// as the camera's motion.
  cv::Matx23d apply(const cv::Mat& frame, const std::vector<DetBox>& boxes);

 private:
  struct State;
  GmcMethod method_;
  int downscale_;
  std::unique_ptr<State> s_;
};

}  // namespace ywb::track
