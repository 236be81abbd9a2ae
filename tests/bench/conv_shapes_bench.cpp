// Not a test: how near LibTorch's convolutions come, layer shape by layer shape, to a matrix product of the
// same size (docs/PERFORMANCE.md, "How near the convolutions run to this CPU's matrix-product rate").
//   conv_shapes_bench [imgsz=320] [batch=16] [channels=16,32,64,128] [iters=5] [threads=2]
// For each channel count c, a 3x3 convolution c -> c at stride 1 on the map yolov8n's bottleneck of that
// width sees (imgsz/4 for 16 channels, halved for each doubling: imgsz/4, /8, /16, /32). It times,
// each in its own block, the forward (`at::conv2d`), its input and weight gradients, and `at::mm` of the
// convolution's own im2col product ([c] x [9c] times [9c] x [batch H W]; the im2col copy itself not done),
// and prints GFLOP/s (median of `iters` after one). Runs under the engine's thread count and host allocator
// policy (configureTorchThreads), as training does.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>  // at::NoGradGuard (not through ATen.h in LibTorch 2.x)
#include <torch/csrc/autograd/autograd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/threads.h"

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{
      {"imgsz", "320"}, {"batch", "16"}, {"channels", "16,32,64,128"}, {"iters", "5"}, {"threads", "2"}};
  if (!bench::parseArgs(argc, argv, a)) return 2;
  const int64_t imgsz = std::stoll(a["imgsz"]), batch = std::stoll(a["batch"]);
  const int iters = std::stoi(a["iters"]);
  ywb::configureTorchThreads(std::stoi(a["threads"]));
  std::vector<int64_t> widths;
  std::stringstream list(a["channels"]);
  for (std::string item; std::getline(list, item, ',');) widths.push_back(std::stoll(item));

  std::printf("3x3 convolution, batch %lld, %d threads: GFLOP/s (median of %d after 1)\n",
              static_cast<long long>(batch), at::get_num_threads(), iters);
  std::printf("%-24s %10s %12s %12s %14s\n", "layer", "MFLOP", "forward", "backward", "mm of its shape");
  for (const int64_t c : widths) {
    int64_t side = imgsz / 4;
    for (int64_t k = 16; k < c; k *= 2) side /= 2;
    if (side < 1) continue;
    const at::Tensor x = at::rand({batch, c, side, side}), w = at::rand({c, c, 3, 3});
    const at::Tensor xg = x.clone().requires_grad_(true), wg = w.clone().requires_grad_(true);
    const at::Tensor m = at::rand({c, 9 * c}), cols = at::rand({9 * c, batch * side * side});
    const double flop = 2.0 * double(batch * side * side) * double(c * c * 9);
    at::Tensor y, grad, out;  // out keeps each result alive until the next round's
    // Each in its own block (warm-up, then `iters`), not interleaved: OpenBLAS's threads and LibTorch's
    // OpenMP threads each spin a while after their work, so a product timed right after a convolution (or the
    // reverse) shares the two cores with the other pool's spinning threads (it measured half its rate).
    const std::vector<std::function<void()>> fs{
        [&] {
          at::NoGradGuard off;
          out = at::conv2d(x, w, {}, 1, 1);
        },
        [&] {
          if (!y.defined()) {  // one graph, its gradients taken again each round (retain_graph)
            y = at::conv2d(xg, wg, {}, 1, 1);
            grad = at::ones_like(y);
          }
          out = torch::autograd::grad({y}, {xg, wg}, {grad}, /*retain_graph=*/true)[1];
        },
        [&] {
          at::NoGradGuard off;
          out = at::mm(m, cols);
        }};
    std::vector<double> t;
    for (const auto& f : fs) t.push_back(bench::timeInterleaved({f}, iters)[0].first);
    char name[64];
    std::snprintf(name, sizeof name, "%lld -> %lld at %lldx%lld", static_cast<long long>(c),
                  static_cast<long long>(c), static_cast<long long>(side), static_cast<long long>(side));
    std::printf("%-24s %10.1f %12.1f %12.1f %14.1f\n", name, flop / 1e6, flop / t[0] / 1e6,
                2 * flop / t[1] / 1e6, flop / t[2] / 1e6);
  }
  return 0;
}
