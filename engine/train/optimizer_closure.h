// The loss closure of torch::optim::Optimizer::step, evaluated as LibTorch's own optimizers do: with
// gradients enabled (step itself runs under NoGradGuard). Shared by ForeachSGD and ForeachAdamW.
// Thread rules: the caller's (an optimizer step runs on one thread).
#pragma once
#include <torch/optim/optimizer.h>

namespace ywb {

/// The closure's loss, or an undefined tensor when there is no closure.
inline at::Tensor evaluateLossClosure(const torch::optim::Optimizer::LossClosure& closure) {
  if (closure == nullptr) return {};
  at::AutoGradMode enable_grad(true);
  return closure();
}

}  // namespace ywb
