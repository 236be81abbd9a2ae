// Not a test: the CPU cost of the graph-ready loss (DetectionLossOptions::fixed_shapes, issue 33) against the
// default loss, forward + backward on random head maps of one batch (docs/PERFORMANCE.md, "Graph-ready
// loss").
//   graph_loss_bench [imgsz=640] [batch=16] [nc=80] [boxes=25] [capacity=168] [head=v8|26] [iters=10]
//   [threads=2] [seed=0]
// boxes: the mean per image; each image gets a count uniform in [boxes/2, 3*boxes/2] (a Mosaic batch of COCO
// holds about 4 x 7.5 labels per sample, less the clipped ones), sides log-uniform between 1% and 50% of the
// image. capacity: the run-wide padded count (targetCapacity; coco128's 42 labels at most per image x 4 for
// Mosaic = 168). head=26: YOLO26's end-to-end loss (reg_max 1, two branches). Prints the median time of the
// default loss, of the fixed-shape loss at the batch's own padded count, and at the capacity.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "data/grouped_targets.h"
#include "loss/end_to_end_loss.h"

namespace {

double medianMs(const std::function<void()>& f, int iters) {
  f();  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"imgsz", "640"}, {"batch", "16"},     {"nc", "80"},
                                       {"boxes", "25"},  {"capacity", "168"}, {"head", "v8"},
                                       {"iters", "10"},  {"threads", "2"},    {"seed", "0"}};
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const auto eq = s.find('=');
    if (eq == std::string::npos || !a.count(s.substr(0, eq))) {
      std::fprintf(stderr, "unknown argument %s\n", s.c_str());
      return 2;
    }
    a[s.substr(0, eq)] = s.substr(eq + 1);
  }
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
  const double d = medianMs([&] { run(false, g); }, iters);
  const double f_own = medianMs([&] { run(true, g); }, iters);
  const double f_cap = medianMs([&] { run(true, padded); }, iters);
  std::printf(
      "head %s imgsz %lld batch %lld nc %lld: %zu boxes, batch's padded count %lld, capacity %lld, "
      "%d threads; loss forward+backward, median of %d: default %.1f ms, fixed-shape %.1f ms (own count), "
      "%.1f ms (capacity)\n",
      e2e ? "yolo26" : "v8", (long long)imgsz, (long long)batch, (long long)nc, rows.size(),
      (long long)g.mask.size(1), (long long)padded.mask.size(1), at::get_num_threads(), iters, d, f_own,
      f_cap);
  return 0;
}
