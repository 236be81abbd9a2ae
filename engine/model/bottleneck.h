// Two 3x3 Convs with an optional residual (YOLOv8's Bottleneck, expansion 1.0 inside C2f).
// Keys: cv1.*, cv2.*. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/conv.h"

namespace ywb::model {

struct BottleneckOptions {
  BottleneckOptions(int64_t c1, int64_t c2) : c1_(c1), c2_(c2) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(bool, shortcut) = true;
  TORCH_ARG(double, e) = 0.5;  ///< hidden channels = int(c2 * e)
};

class BottleneckImpl : public torch::nn::Module {
 public:
  explicit BottleneckImpl(const BottleneckOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  BottleneckOptions options;
  Conv cv1{nullptr}, cv2{nullptr};

 private:
  bool add_ = false;
};
TORCH_MODULE(Bottleneck);

}  // namespace ywb::model
