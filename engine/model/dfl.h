// Distribution Focal Loss integral: a fixed 1x1 conv with weights 0..reg_max-1 (not trained) that turns
// per-side bin logits into expected distances. Key: conv.weight (counted as a parameter, no gradient,
// as in Ultralytics). Thread rules: a module is used by one thread at a time.
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

namespace ywb::model {

class DFLImpl : public torch::nn::Module {
 public:
  explicit DFLImpl(int64_t reg_max = 16);
  /// [N, 4*reg_max, A] logits -> [N, 4, A] expected distances in bins.
  at::Tensor forward(const at::Tensor& x);

  int64_t reg_max;
  torch::nn::Conv2d conv{nullptr};
};
TORCH_MODULE(DFL);

}  // namespace ywb::model
