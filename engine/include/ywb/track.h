// Object tracking settings (`ywb track`, the Predictions tab's tracking): BoT-SORT's and ByteTrack's, as
// Ultralytics' botsort.yaml and bytetrack.yaml name them. Thread rules: plain values and a reentrant loader.
#pragma once
#include <string>

namespace ywb {

/// The detection confidence tracking runs at unless told (Ultralytics' track mode: ByteTrack's second
/// association needs the detections between 0.1 and 0.25).
inline constexpr double kTrackConf = 0.1;

/// The tracker: ByteTrack (Zhang et al. 2022), or BoT-SORT (Aharon et al. 2022) as Ultralytics runs it:
/// ByteTrack's association with a Kalman filter over (centre, width, height) and the camera's motion
/// compensated.
enum class TrackerType { ByteTrack, BotSort };

/// BoT-SORT's camera-motion estimate (gmc_method): sparse optical flow (Ultralytics' default), ORB or SIFT
/// keypoints, ECC image alignment, or none.
enum class GmcMethod { None, SparseOptFlow, Orb, Sift, Ecc };

/// The tracker's settings. The defaults are Ultralytics' botsort.yaml, its default tracker; bytetrack.yaml
/// has the same thresholds.
struct TrackerOptions {
  TrackerType type = TrackerType::BotSort;
  GmcMethod gmc_method = GmcMethod::SparseOptFlow;  ///< BoT-SORT only
  double track_high_thresh = 0.25;                  ///< detections at or above it are associated first
  double track_low_thresh = 0.1;   ///< those above it and below the high one rescue tracked objects
  double new_track_thresh = 0.25;  ///< an unmatched detection at or above it starts a track
  int track_buffer = 30;           ///< frames (at 30 fps) a lost track is kept before it is dropped
  double match_thresh = 0.8;       ///< the first association's largest cost (1 - IoU, see fuse_score)
  bool fuse_score = true;          ///< the first association's cost is 1 - IoU x the detection's score
  /// BoT-SORT's ReID (with_reid, model: auto): the first and third associations also compare appearance,
  /// the detector's own features at each detection's anchor (track/appearance.h). A pair's cost becomes the
  /// lower of its motion cost and its appearance cost, where the appearance cost counts only for pairs whose
  /// boxes overlap (1 - IoU at most proximity_thresh) and whose appearance cost is at most
  /// appearance_thresh.
  bool with_reid = false;
  double proximity_thresh = 0.5;
  double appearance_thresh = 0.8;
};

/// Whether a tracker with these settings compares appearance (BoT-SORT with with_reid; ByteTrack has none),
/// so that its detections need features.
inline bool usesAppearance(const TrackerOptions& o) {
  return o.type == TrackerType::BotSort && o.with_reid;
}

/// The settings a `tracker=` value names: "botsort.yaml" (or "botsort": the defaults above), "bytetrack.yaml"
/// (or "bytetrack") or a YAML file with Ultralytics' keys (tracker_type, the thresholds above, gmc_method,
/// and BoT-SORT's ReID keys proximity_thresh, appearance_thresh, with_reid and model; missing keys keep
/// their defaults; ByteTrack ignores gmc_method and the ReID keys, as Ultralytics does). Throws ywb::Error
/// naming the file and the key for an unreadable file, an unknown key, a value out of range, a ReID model
/// other than auto (a separate ReID network is not available), or a gmc_method this build lacks.
TrackerOptions loadTrackerOptions(const std::string& tracker);

/// gmc_method's names as Ultralytics spells them: "sparseOptFlow", "orb", "sift", "ecc", "none".
const char* gmcMethodName(GmcMethod m);

/// The tracker in words, as `ywb track` and `ywb bench track` name it: "ByteTrack", "BoT-SORT (gmc_method
/// sparseOptFlow)", "BoT-SORT (gmc_method none, ReID)".
std::string trackerDescription(const TrackerOptions& o);

/// `ywb bench track`: the tracker alone on a made-up video, `objects` boxes (40 x 60 px) moving at
/// constant speeds over a 1920 x 1080 frame, each missed in a frame with probability 0.05, scores uniform
/// in [0, 1), coordinates jittered by 1.5 px. A BoT-SORT that compensates camera motion gets the frames too:
/// a textured scene the camera pans over by (3, 1) px a frame (the boxes move with it), so its time includes
/// the motion estimate on 1920 x 1080 frames. A BoT-SORT with with_reid also gets each box's appearance:
/// 64 random values per object, seen with Gaussian noise (sigma 0.3 against 1).
struct TrackBenchOptions {
  int objects = 50;
  int frames = 1000;
  unsigned seed = 0;
  TrackerOptions tracker;
};
struct TrackBenchReport {
  double ms_per_frame = 0;      ///< the tracker's update, per frame
  long long tracked_boxes = 0;  ///< confirmed boxes returned over all frames
  int ids = 0;                  ///< distinct track ids given
};
/// Throws ywb::Error for objects or frames below 1.
TrackBenchReport benchmarkTracker(const TrackBenchOptions& options);

}  // namespace ywb
