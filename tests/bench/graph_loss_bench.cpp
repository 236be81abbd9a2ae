// Not a test: the CPU cost of the graph-ready loss (DetectionLossOptions::fixed_shapes, issue 33) against the
// default loss, forward + backward on random head maps of one batch (docs/PERFORMANCE.md, "Graph-ready
// loss").
//   graph_loss_bench [imgsz=640] [batch=16] [nc=80] [boxes=25] [capacity=168] [head=v8|26] [iters=10]
//   [threads=2] [seed=0]
// boxes: the mean per image; each image gets a count uniform in [boxes/2, 3*boxes/2] (a Mosaic batch of COCO
// holds about 4 x 7.5 labels per sample, less the clipped ones), sides log-uniform between 1% and 50% of the
// image. capacity: the run-wide padded count (targetCapacity; coco128's 42 labels at most per image x 4 for
// Mosaic = 168). head=26: YOLO26's end-to-end loss (reg_max 1, two branches). Prints the median and minimum
// of the default loss, of the fixed-shape loss at the batch's own padded count, and at the capacity, and of
// the assignment alone, default and at the capacity, interleaved.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>  // at::NoGradGuard (not through ATen.h in LibTorch 2.x)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "data/grouped_targets.h"
#include "loss/end_to_end_loss.h"

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"imgsz", "640"}, {"batch", "16"},     {"nc", "80"},
                                       {"boxes", "25"},  {"capacity", "168"}, {"head", "v8"},
                                       {"iters", "10"},  {"threads", "2"},    {"seed", "0"}};
  if (!bench::parseArgs(argc, argv, a)) return 2;
  const int64_t imgsz = std::stoll(a["imgsz"]), batch = std::stoll(a["batch"]), nc = std::stoll(a["nc"]);
  const double boxes = std::stod(a["boxes"]);
  const int64_t capacity = std::stoll(a["capacity"]);
  const bool e2e = a["head"] == "26";
  const int iters = std::stoi(a["iters"]);
  at::set_num_threads(std::stoi(a["threads"]));
  at::manual_seed(std::stoull(a["seed"]));

  // Targets: per image a count uniform in [boxes/2, 3 boxes/2], boxes inside the image.
  std::vector<std::vector<float>> rows;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = int64_t(std::lround(boxes * (0.5 + at::rand({}).item<double>())));
    for (int64_t k = 0; k < n; ++k) {
      const at::Tensor r = at::rand({4});
      const float w = float(0.01 * std::pow(50.0, r[0].item<double>()));
      const float h = float(0.01 * std::pow(50.0, r[1].item<double>()));
      const float cx = w / 2 + (1 - w) * r[2].item<float>(), cy = h / 2 + (1 - h) * r[3].item<float>();
      rows.push_back({float(b), float(at::randint(nc, {}).item<int64_t>()), cx, cy, w, h});
    }
  }
  at::Tensor t = at::zeros({int64_t(rows.size()), 6});
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < 6; ++j) t[int64_t(i)][int64_t(j)] = rows[i][j];
  const ywb::GroupedTargets g = ywb::groupTargets(t, batch, nc);
  const ywb::GroupedTargets padded = ywb::padGroupedTargets(g, std::max(capacity, g.mask.size(1)));

  ywb::loss::DetectionLossOptions o;
  o.nc = nc;
  o.reg_max = e2e ? 1 : 16;
  const int64_t channels = 4 * o.reg_max + nc;
  std::vector<at::Tensor> maps;
  for (int branch = 0; branch < (e2e ? 2 : 1); ++branch)
    for (const int64_t s : o.strides) {
      at::Tensor m = at::randn({batch, channels, imgsz / s, imgsz / s});
      if (e2e) m.narrow(1, 0, 4).abs_().add_(0.5);  // distances in grid units
      maps.push_back(m.requires_grad_(true));
    }
  const auto run = [&](bool fixed, const ywb::GroupedTargets& targets) {
    o.fixed_shapes = fixed;
    for (auto& m : maps) m.mutable_grad() = at::Tensor();
    at::Tensor total;
    if (e2e) {
      const std::vector<at::Tensor> many(maps.begin(), maps.begin() + 3), one(maps.begin() + 3, maps.end());
      total = ywb::loss::EndToEndLoss(o)({many, one}, targets, 0.8).total;
    } else {
      total = ywb::loss::DetectionLoss(o)(maps, targets).total;
    }
    total.backward();
  };
  // The assignment alone (no autograd), default and at the capacity: how much of the cost is the assigner's.
  const auto assign = [&](bool fixed, const ywb::GroupedTargets& targets) {
    o.fixed_shapes = fixed;
    at::NoGradGuard no_grad;
    const std::vector<at::Tensor> many(maps.begin(), maps.begin() + 3);
    ywb::loss::DetectionLoss(o).assignment(many, targets);
  };
  const auto times =
      bench::timeInterleaved({[&] { run(false, g); }, [&] { run(true, g); }, [&] { run(true, padded); },
                              [&] { assign(false, g); }, [&] { assign(true, padded); }},
                             iters);
  std::printf(
      "head %s imgsz %lld batch %lld nc %lld: %zu boxes, batch's padded count %lld, capacity %lld, %d "
      "threads; "
      "loss forward+backward, median (min) of %d: default %.1f (%.1f) ms, fixed-shape at the batch's count "
      "%.1f (%.1f) ms, at the capacity %.1f (%.1f) ms; the (one-to-many) assignment alone: default %.1f "
      "(%.1f) "
      "ms, fixed-shape at the capacity %.1f (%.1f) ms\n",
      e2e ? "yolo26" : "v8", (long long)imgsz, (long long)batch, (long long)nc, rows.size(),
      (long long)g.mask.size(1), (long long)padded.mask.size(1), at::get_num_threads(), iters, times[0].first,
      times[0].second, times[1].first, times[1].second, times[2].first, times[2].second, times[3].first,
      times[3].second, times[4].first, times[4].second);
  return 0;
}
