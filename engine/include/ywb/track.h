// Object tracking settings (`ywb track`, the Predictions tab's tracking): ByteTrack's, as Ultralytics'
// bytetrack.yaml names them. Thread rules: plain values and a reentrant loader.
#pragma once
#include <string>

namespace ywb {

/// The detection confidence tracking runs at unless told (Ultralytics' track mode: ByteTrack's second
/// association needs the detections between 0.1 and 0.25).
inline constexpr double kTrackConf = 0.1;

/// ByteTrack's settings, with the defaults of Ultralytics' bytetrack.yaml.
struct TrackerOptions {
  double track_high_thresh = 0.25;  ///< detections at or above it are associated first
  double track_low_thresh = 0.1;    ///< those above it and below the high one rescue tracked objects
  double new_track_thresh = 0.25;   ///< an unmatched detection at or above it starts a track
  int track_buffer = 30;            ///< frames (at 30 fps) a lost track is kept before it is dropped
  double match_thresh = 0.8;        ///< the first association's largest cost (1 - IoU, see fuse_score)
  bool fuse_score = true;           ///< the first association's cost is 1 - IoU x the detection's score
};

/// The settings a `tracker=` value names: "bytetrack.yaml" (or "bytetrack": the defaults above) or a YAML
/// file with Ultralytics' keys (tracker_type: bytetrack and any of the fields above; missing keys keep
/// their defaults). Throws ywb::Error naming the file and the key for an unreadable file, an unknown key,
/// a value out of range, or another tracker type (BoT-SORT is not available).
TrackerOptions loadTrackerOptions(const std::string& tracker);

/// `ywb bench track`: the tracker alone on a made-up video, `objects` boxes (40 x 60 px) moving at
/// constant speeds over a 1920 x 1080 frame, each missed in a frame with probability 0.05, scores uniform
/// in [0, 1), coordinates jittered by 1.5 px.
struct TrackBenchOptions {
  int objects = 50;
  int frames = 1000;
  unsigned seed = 0;
};
struct TrackBenchReport {
  double ms_per_frame = 0;      ///< the tracker's update, per frame
  long long tracked_boxes = 0;  ///< confirmed boxes returned over all frames
  int ids = 0;                  ///< distinct track ids given
};
/// Throws ywb::Error for objects or frames below 1.
TrackBenchReport benchmarkTracker(const TrackBenchOptions& options);

}  // namespace ywb
