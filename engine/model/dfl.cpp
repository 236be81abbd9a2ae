#include "model/dfl.h"

#include "model/box_decode.h"

namespace ywb::model {

DFLImpl::DFLImpl(int64_t c) : reg_max(c) {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(c, 1, 1).bias(false)));
  torch::NoGradGuard no_grad;
  conv->weight.copy_(at::arange(c, conv->weight.options()).view({1, c, 1, 1}));
  conv->weight.set_requires_grad(false);
}

at::Tensor DFLImpl::forward(const at::Tensor& x) {
  return dflExpectation(x, reg_max, conv->weight);
}

}  // namespace ywb::model
