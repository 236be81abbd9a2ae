// loadTrackerOptions(): `tracker=` values, Ultralytics' tracker YAML files.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "ywb/track.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

bool named(const std::string& tracker, const char* stem) {
  return tracker == stem || tracker == std::string(stem) + ".yaml";
}

[[noreturn]] void noBotSort(const std::string& where) {
  fail(where,
       "BoT-SORT is not available: ywb tracks with ByteTrack (tracker=bytetrack.yaml, or a YAML file with "
       "tracker_type: bytetrack)");
}

}  // namespace

TrackerOptions loadTrackerOptions(const std::string& tracker) {
  TrackerOptions o;
  std::error_code ec;
  if (tracker.empty() || (named(tracker, "bytetrack") && !fs::is_regular_file(tracker, ec))) return o;
  if (named(tracker, "botsort") && !fs::is_regular_file(tracker, ec)) noBotSort("tracker=" + tracker + ": ");
  if (!fs::is_regular_file(tracker, ec))
    fail("tracker=", tracker, ": no such file (bytetrack.yaml, or a YAML file of ByteTrack's settings)");
  std::ifstream in(tracker);
  std::stringstream text;
  if (!(text << in.rdbuf())) fail("cannot read '", tracker, "'");
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    fail(tracker, ":", e.mark.line + 1, ": broken YAML: ", e.msg);
  }
  if (root.IsNull()) return o;
  if (!root.IsMap()) fail(tracker, ": expected a mapping of setting: value (tracker_type: bytetrack, ...)");
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
    if (key == "tracker_type") {
      const std::string type = v.IsScalar() ? v.Scalar() : std::string();
      if (type == "botsort") noBotSort(at);
      if (type != "bytetrack") fail(at, "tracker_type: '", type, "' is not a tracker (bytetrack)");
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
      try {
        o.fuse_score = v.as<bool>();
      } catch (const YAML::Exception&) {
        fail(at, "fuse_score: expected true or false");
      }
    } else if (key == "gmc_method" || key == "proximity_thresh" || key == "appearance_thresh" ||
               key == "with_reid" || key == "model") {
      noBotSort(at + key + " is a BoT-SORT setting. ");
    } else {
      fail(at, "unknown setting '", key,
           "' (ByteTrack's are tracker_type, track_high_thresh, track_low_thresh, new_track_thresh, "
           "track_buffer, match_thresh, fuse_score)");
    }
  }
  if (o.track_low_thresh > o.track_high_thresh)
    fail(tracker, ": track_low_thresh ", o.track_low_thresh, " is above track_high_thresh ",
         o.track_high_thresh);
  return o;
}

}  // namespace ywb
