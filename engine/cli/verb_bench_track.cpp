#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/verb_registry.h"
#include "ywb/track.h"

namespace ywb::cli {
namespace {

int runBenchTrack(const Args& a) {
  a.requireKnown({"objects", "frames", "seed", "tracker"});
  TrackBenchOptions o;
  o.tracker = loadTrackerOptions(a.str("tracker", "botsort.yaml"));
  const std::string name = trackerDescription(o.tracker);
  o.objects = int(a.integer("objects", o.objects));
  o.frames = int(a.integer("frames", o.frames));
  o.seed = unsigned(a.integer("seed", 0));
  const TrackBenchReport r = benchmarkTracker(o);
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"tracker", name},
                                       {"objects", o.objects},
                                       {"frames", o.frames},
                                       {"ms_per_frame", r.ms_per_frame},
                                       {"tracked_boxes", r.tracked_boxes},
                                       {"ids", r.ids}}
                            .dump()
                            .c_str());
  } else {
    std::printf("%s, %d objects, %d frames: %.3f ms per frame (%.0f frames/s), %lld tracked boxes, %d ids\n",
                name.c_str(), o.objects, o.frames, r.ms_per_frame,
                r.ms_per_frame > 0 ? 1000 / r.ms_per_frame : 0.0, r.tracked_boxes, r.ids);
  }
  return 0;
}

const RegisterVerb reg{
    {"bench track", "time the tracker (BoT-SORT or ByteTrack) alone on a made-up video",
     "[objects=50] [frames=1000] [seed=0] [tracker=botsort.yaml] [--json]\n\n"
     "Moves `objects` boxes at constant speeds over a 1920 x 1080 frame (each missed 5% of the time,\n"
     "scores uniform, 1.5 px jitter) and times the tracker's update per frame: what tracking adds to\n"
     "`ywb predict`'s time per frame in `ywb track`. BoT-SORT also gets the frames (a textured scene\n"
     "the camera pans over), so its time includes the camera-motion estimate; tracker=bytetrack.yaml\n"
     "times ByteTrack. A tracker file with with_reid: True also gives each box 64 appearance values (its\n"
     "object's own, with noise), so the time includes the appearance comparison.",
     runBenchTrack}};

}  // namespace
}  // namespace ywb::cli
