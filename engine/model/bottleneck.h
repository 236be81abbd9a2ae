// Two Convs (k1 x k1, then k2 x k2 with groups g) with an optional residual: Ultralytics' Bottleneck (3x3 +
// 3x3 with expansion 1.0 inside C2f, 0.5 inside C3k2; 1x1 + 3x3 inside C3).
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
  TORCH_ARG(int64_t, k1) = 3;  ///< kernel of cv1
  TORCH_ARG(int64_t, k2) = 3;  ///< kernel of cv2
  TORCH_ARG(int64_t, g) = 1;   ///< groups of cv2
};

class BottleneckImpl : public torch::nn::Module {
 public:
  explicit BottleneckImpl(const BottleneckOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  BottleneckOptions options;
  Conv cv1{nullptr}, cv2{nullptr};
  /// Whether the input is added to the output (shortcut and c1 == c2).
  bool residual() const { return add_; }

 private:
  bool add_ = false;
};
TORCH_MODULE(Bottleneck);

/// Builds `n` bottlenecks and drops them. Ultralytics' C3k and C3k2 first build their parent's blocks (C3's,
/// C2f's) and then replace them; drawing the same random numbers is what makes a seed give Ultralytics'
/// initial weights (test_parity_loss).
void drawReplacedBottlenecks(const BottleneckOptions& options, int64_t n);

}  // namespace ywb::model
