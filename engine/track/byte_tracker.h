// ByteTrack (Zhang et al., 2022) over a video's detections: each frame's boxes get the identity of the
// object they continue. High-score detections are matched first to tracked and recently lost objects, then
// low-score ones rescue the tracked objects left over, so an object whose detector score dips stays
// tracked. With TrackerType::BotSort it is BoT-SORT as Ultralytics runs it (Aharon et al., 2022): the same
// association over a (centre, width, height) filter whose predictions follow the camera's motion between
// frames (CameraMotion), and with with_reid the detections' appearance (track/appearance.h) besides their
// overlap. Thread rules: one tracker per video, used by one thread.
#pragma once
#include <memory>
#include <vector>

#include "track/appearance.h"
#include "track/camera_motion.h"
#include "track/kalman_box.h"
#include "ywb/metrics.h"
#include "ywb/track.h"

namespace ywb::track {

class ByteTracker {
 public:
  explicit ByteTracker(const TrackerOptions& options);
  ~ByteTracker();

  /// One frame's detections (any order, original-image pixels) in; the confirmed objects seen in this
  /// frame out, each with its track id (DetBox::track_id, from 1), the filtered box, and its detection's
  /// score and class. A track found in a later frame than the first is confirmed by a second match.
  /// `frame`: the video frame itself (BGR), which BoT-SORT's camera-motion estimate needs; without it (or
  /// with ByteTrack) no motion is compensated. `features`: with BoT-SORT's with_reid, each detection's
  /// appearance (objectFeatures(), in the detections' order); without it, or empty, none is compared.
  /// Throws ywb::Error when features are given for another number of detections.
  std::vector<DetBox> update(const std::vector<DetBox>& detections, const cv::Mat& frame = cv::Mat(),
                             const Features& features = {});

  /// Whether this tracker compares appearance (BoT-SORT with with_reid).
  bool usesAppearance() const { return ywb::usesAppearance(o_); }

  /// Frames seen so far.
  int frame() const { return frame_; }

  struct Track;  ///< one object's state (byte_tracker.cpp)
  using TrackPtr = std::shared_ptr<Track>;

 private:
  void activate(Track& t);
  void follow(Track& t, const DetBox& det, const Appearance& look);
  /// The association's costs, tracks x dets: 1 - IoU (x the score with fuse_score), and with `looks` (the
  /// detections' appearance) BoT-SORT's appearance rule on top.
  std::vector<double> costs(const std::vector<TrackPtr>& tracks, const std::vector<DetBox>& dets,
                            bool fuse_score, const std::vector<Appearance>* looks = nullptr) const;

  TrackerOptions o_;
  BoxForm form_;
  std::unique_ptr<CameraMotion> motion_;  // BoT-SORT's, when it compensates camera motion
  int frame_ = 0, next_id_ = 1;
  std::vector<TrackPtr> tracked_, lost_;
};

}  // namespace ywb::track
