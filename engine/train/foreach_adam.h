// Adam (L2 weight decay added to the gradient, as torch.optim.Adam) and RMSprop as a few multi-tensor
// (foreach) kernels per parameter group, with LibTorch's own state classes, so results and checkpoints equal
// torch::optim::Adam's and torch::optim::RMSprop's (bit for bit: tests/engine/test_optimizers.cpp).
// Ultralytics builds them as Adam(betas=(momentum, 0.999)) and RMSprop(momentum=momentum); amsgrad and
// centered RMSprop fall back to LibTorch's loops. Thread rules: like any torch optimizer, one thread at a
// time.
#pragma once
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>

namespace ywb {

class ForeachAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  at::Tensor step(LossClosure closure = nullptr) override;
};

class ForeachRMSprop : public torch::optim::RMSprop {
 public:
  using torch::optim::RMSprop::RMSprop;
  at::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ywb
