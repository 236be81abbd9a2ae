// CSP bottleneck with two convolutions (YOLOv8's C2f): split cv1's output in two halves, run n Bottlenecks
// on the second half in a chain, concatenate every intermediate, fuse with cv2.
// Keys: cv1.*, cv2.*, m.<i>.*. Thread rules: a module is used by one thread at a time.
#pragma once
#include <torch/nn/modules/container/modulelist.h>

#include "model/bottleneck.h"

namespace ywb::model {

struct C2fOptions {
  C2fOptions(int64_t c1, int64_t c2, int64_t n = 1) : c1_(c1), c2_(c2), n_(n) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, n);
  TORCH_ARG(bool, shortcut) = false;
  TORCH_ARG(double, e) = 0.5;
};

class C2fImpl : public torch::nn::Module {
 public:
  explicit C2fImpl(const C2fOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  C2fOptions options;
  Conv cv1{nullptr}, cv2{nullptr};
  std::vector<Bottleneck> blocks;  ///< registered as the ModuleList "m"

 private:
  int64_t c_ = 0;  ///< hidden channels
};
TORCH_MODULE(C2f);

}  // namespace ywb::model
