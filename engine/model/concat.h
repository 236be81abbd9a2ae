// Concatenation of several layer outputs along a dimension (channels). No parameters.
// Thread rules: stateless.
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace ywb::model {

class ConcatImpl : public torch::nn::Module {
 public:
  explicit ConcatImpl(int64_t d = 1) : dim(d) {}
  at::Tensor forward(const std::vector<at::Tensor>& xs) { return at::cat(xs, dim); }
  int64_t dim;
};
TORCH_MODULE(Concat);

}  // namespace ywb::model
