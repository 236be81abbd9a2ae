// benchmarkTracker(): the `ywb bench track` workload.
#include <chrono>
#include <opencv2/imgproc.hpp>
#include <random>
#include <set>

#include "core/error.h"
#include "track/byte_tracker.h"
#include "ywb/track.h"

namespace ywb {

TrackBenchReport benchmarkTracker(const TrackBenchOptions& o) {
  if (o.objects < 1 || o.frames < 1)
    fail("bench track: objects=", o.objects, " frames=", o.frames, ": both must be 1 or more");
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> jitter(0, 1.5f);
  std::uniform_real_distribution<float> unit(0, 1);
  std::vector<float> x(size_t(o.objects)), y(x), vx(x), vy(x);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = unit(rng) * 1800 + 60, y[i] = unit(rng) * 1000 + 40;
    vx[i] = unit(rng) * 8 - 4, vy[i] = unit(rng) * 4 - 2;
  }
  track::ByteTracker tracker{o.tracker};
  // With ReID, each object's appearance: 64 values of its own (YOLOv8n's feature length), seen with noise.
  const bool reid = tracker.usesAppearance();
  std::normal_distribution<float> normal(0, 1);
  std::vector<std::vector<float>> looks(reid ? x.size() : 0, std::vector<float>(64));
  for (auto& l : looks)
    for (float& v : l) v = normal(rng);
  // The frames, for a tracker that looks at them: views of a smooth random scene panned (3, 1) px a frame.
  const bool frames = track::compensatesCameraMotion(o.tracker);
  constexpr int kW = 1920, kH = 1080, kPanX = 3, kPanY = 1;
  cv::Mat scene;
  if (frames) {
    cv::Mat coarse(kH / 8 + o.frames * kPanY / 8 + 2, kW / 8 + o.frames * kPanX / 8 + 2, CV_8UC3);
    cv::randu(coarse, 0, 256);
    cv::resize(coarse, scene, cv::Size(coarse.cols * 8, coarse.rows * 8), 0, 0, cv::INTER_CUBIC);
  }
  TrackBenchReport r;
  std::set<int> ids;
  double ms = 0;
  for (int f = 0; f < o.frames; ++f) {
    std::vector<DetBox> dets;
    track::Features features;
    for (size_t i = 0; i < x.size(); ++i) {
      if (unit(rng) < 0.05f) continue;
      if (reid) {
        features.push_back(looks[i]);
        for (float& v : features.back()) v += 0.3f * normal(rng);
      }
      float cx = x[i] + vx[i] * float(f) + jitter(rng), cy = y[i] + vy[i] * float(f) + jitter(rng);
      if (frames) cx -= float(kPanX * f), cy -= float(kPanY * f);  // the camera moves right and down
      DetBox b;
      b.x1 = cx - 20, b.x2 = cx + 20, b.y1 = cy - 30, b.y2 = cy + 30;
      b.score = unit(rng);
      dets.push_back(b);
    }
    const cv::Mat frame = frames ? scene(cv::Rect(kPanX * f, kPanY * f, kW, kH)) : cv::Mat();
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<DetBox> out = tracker.update(dets, frame, features);
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.tracked_boxes += (long long)out.size();
    for (const DetBox& b : out) ids.insert(b.track_id);
  }
  r.ms_per_frame = ms / o.frames;
  r.ids = int(ids.size());
  return r;
}

}  // namespace ywb
