// loadTrackerOptions(): `tracker=` values, Ultralytics' tracker YAML files.
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "core/error.h"
#include "core/yaml_text.h"
#include "track/camera_motion.h"
#include "ywb/track.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

bool named(const std::string& tracker, const char* stem) {
  return tracker == stem || tracker == std::string(stem) + ".yaml";
}

// gmc_method's value: Ultralytics' names ("None" and null too for none).
bool gmcMethodNamed(const YAML::Node& v, GmcMethod* out) {
  if (v.IsNull()) return *out = GmcMethod::None, true;
  if (!v.IsScalar()) return false;
  for (GmcMethod m :
       {GmcMethod::SparseOptFlow, GmcMethod::Orb, GmcMethod::Sift, GmcMethod::Ecc, GmcMethod::None})
    if (v.Scalar() == gmcMethodName(m)) return *out = m, true;
  if (v.Scalar() == "None") return *out = GmcMethod::None, true;
  return false;
}

// A BoT-SORT that compensates camera motion needs a build with it (track/camera_motion.h).
void checkBuilt(const TrackerOptions& o, const std::string& where) {
  if (track::compensatesCameraMotion(o) && !track::cameraMotionBuilt())
    fail(where, "BoT-SORT's gmc_method ", gmcMethodName(o.gmc_method),
         " is not in this build (it needs OpenCV's video, calib3d and features2d modules: "
         "libopencv-video-dev, "
         "libopencv-calib3d-dev); use tracker=bytetrack.yaml or a file with gmc_method: none");
}

}  // namespace

std::string trackerDescription(const TrackerOptions& o) {
  if (o.type == TrackerType::ByteTrack) return "ByteTrack";
  return std::string("BoT-SORT (gmc_method ") + gmcMethodName(o.gmc_method) + (o.with_reid ? ", ReID" : "") +
         ")";
}

TrackerOptions loadTrackerOptions(const std::string& tracker) {
  TrackerOptions o;
  std::error_code ec;
  if (!fs::is_regular_file(tracker, ec)) {
    if (tracker.empty() || named(tracker, "botsort")) {
      checkBuilt(o, "tracker=" + tracker + ": ");
      return o;
    }
    if (named(tracker, "bytetrack")) {
      o.type = TrackerType::ByteTrack;
      return o;
    }
    fail("tracker=", tracker,
         ": no such file (botsort.yaml, bytetrack.yaml, or a YAML file of BoT-SORT's or ByteTrack's "
         "settings)");
  }
  const YAML::Node root = loadYamlFile(tracker);
  if (root.IsNull()) return o;
  if (!root.IsMap()) fail(tracker, ": expected a mapping of setting: value (tracker_type: botsort, ...)");
  std::string gmc_at;         // where gmc_method was set, for the build check
  std::string reid_model_at;  // where model: named a separate ReID network
  std::string reid_model = "auto";
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const std::string at = tracker + ":" + std::to_string(kv.first.Mark().line + 1) + ": ";
    const YAML::Node& v = kv.second;
    auto number = [&](double lo, double hi) {
      double x = 0;
      try {
        x = v.as<double>();
      } catch (const YAML::Exception&) {
        fail(at, key, ": expected a number, found '",
             v.IsScalar() ? v.Scalar() : std::string("a list or map"), "'");
      }
      if (!(x >= lo && x <= hi)) fail(at, key, ": ", x, " is outside [", lo, ", ", hi, "]");
      return x;
    };
    auto flag = [&] {
      try {
        return v.as<bool>();
      } catch (const YAML::Exception&) {
        fail(at, key, ": expected true or false");
      }
    };
    if (key == "tracker_type") {
      const std::string type = v.IsScalar() ? v.Scalar() : std::string();
      if (type == "botsort")
        o.type = TrackerType::BotSort;
      else if (type == "bytetrack")
        o.type = TrackerType::ByteTrack;
      else
        fail(at, "tracker_type: '", type, "' is not a tracker (botsort or bytetrack)");
    } else if (key == "track_high_thresh") {
      o.track_high_thresh = number(0, 1);
    } else if (key == "track_low_thresh") {
      o.track_low_thresh = number(0, 1);
    } else if (key == "new_track_thresh") {
      o.new_track_thresh = number(0, 1);
    } else if (key == "match_thresh") {
      o.match_thresh = number(0, 1);
    } else if (key == "track_buffer") {
      const double x = number(0, 1e6);
      if (x != double(int(x))) fail(at, "track_buffer: expected a whole number of frames, found ", x);
      o.track_buffer = int(x);
    } else if (key == "fuse_score") {
      o.fuse_score = flag();
    } else if (key == "gmc_method") {
      if (!gmcMethodNamed(v, &o.gmc_method))
        fail(at, "gmc_method: '", v.IsScalar() ? v.Scalar() : std::string("a list or map"),
             "' is not a method (sparseOptFlow, orb, sift, ecc or none)");
      gmc_at = at;
    } else if (key == "proximity_thresh") {
      o.proximity_thresh = number(0, 1);
    } else if (key == "appearance_thresh") {
      o.appearance_thresh = number(0, 1);
    } else if (key == "with_reid") {
      o.with_reid = flag();
    } else if (key == "model") {
      if (!v.IsScalar() && !v.IsNull()) fail(at, "model: expected a name (ReID's model: auto)");
      reid_model = v.IsNull() ? std::string("auto") : v.Scalar();
      reid_model_at = at;
    } else {
      fail(at, "unknown setting '", key,
           "' (the settings are tracker_type, track_high_thresh, track_low_thresh, new_track_thresh, "
           "track_buffer, match_thresh, fuse_score, and BoT-SORT's gmc_method, proximity_thresh, "
           "appearance_thresh, with_reid, model)");
    }
  }
  if (o.track_low_thresh > o.track_high_thresh)
    fail(tracker, ": track_low_thresh ", o.track_low_thresh, " is above track_high_thresh ",
         o.track_high_thresh);
  if (o.type != TrackerType::BotSort) o.with_reid = false;  // ByteTrack has no ReID (Ultralytics ignores it)
  if (o.with_reid && reid_model != "auto")
    fail(reid_model_at, "model: '", reid_model,
         "': a separate ReID network is not available; model: auto uses the detector's own features "
         "(the head's input at each detection's anchor)");
  checkBuilt(o, gmc_at.empty() ? tracker + ": " : gmc_at);
  return o;
}

}  // namespace ywb
