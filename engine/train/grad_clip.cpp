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
  // The operations of torch.nn.utils.clip_grad_norm_, one for one (each rounds as there): the norm of the
  // stacked per-tensor norms, and max_norm / (total + 1e-6) as PyTorch's Python evaluates a number divided by
  // a tensor, reciprocal() * max_norm (docs/PARITY.md, session 13).
  const std::vector<at::Tensor> norms = at::_foreach_norm(grads, 2);
  const at::Tensor total = at::linalg_vector_norm(at::stack(norms), 2);
  const at::Tensor coef = at::clamp(at::reciprocal(total + 1e-6) * max_norm, c10::nullopt, 1.0);
  compat::foreachMulByScalarTensor(grads, coef);  // a device scalar: no host round trip
  return total;
}

}  // namespace ywb
