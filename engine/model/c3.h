// CSP bottleneck with three convolutions (Ultralytics' C3): cv1 -> n Bottlenecks (1x1 then 3x3, expansion
// 1.0) in a chain, cv2 as a bypass, concatenated and fused by cv3. Keys: cv1.*, cv2.*, cv3.*, m.<i>.*.
// Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/bottleneck.h"

namespace ywb::model {

struct C3Options {
  C3Options(int64_t c1, int64_t c2, int64_t n = 1) : c1_(c1), c2_(c2), n_(n) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, n);
  TORCH_ARG(bool, shortcut) = true;
  TORCH_ARG(int64_t, g) = 1;
  TORCH_ARG(double, e) = 0.5;  ///< hidden channels = int(c2 * e)
};

class C3Impl : public torch::nn::Module {
 public:
  explicit C3Impl(const C3Options& o) : C3Impl(o, 1, 3) {}
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  C3Options options;
  Conv cv1{nullptr}, cv2{nullptr}, cv3{nullptr};
  std::vector<Bottleneck> blocks;  ///< registered as "m"

 protected:
  /// The bottlenecks' kernels k1 (first conv) and k2 (second conv): 1 and 3 for C3, k and k for C3k.
  C3Impl(const C3Options& options, int64_t k1, int64_t k2);
};
TORCH_MODULE(C3);

}  // namespace ywb::model
