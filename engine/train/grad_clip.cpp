#include "train/grad_clip.h"

#include <torch/autograd.h>

#include "core/torch_compat.h"

namespace ywb {

at::Tensor clipGradNorm(const std::vector<at::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return {};
  const std::vector<at::Tensor> norms = at::_foreach_norm(grads, 2);
  const at::Tensor total = norms.size() == 1 ? norms[0] : at::stack(norms).norm(2);
  const at::Tensor coef = at::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  compat::foreachMulByScalarTensor(grads, coef);  // a device scalar: no host round trip
  return total;
}

}  // namespace ywb
