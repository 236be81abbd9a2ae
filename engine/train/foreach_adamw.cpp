#include "train/foreach_adamw.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <cmath>

#include "train/adam_batches.h"
#include "train/optimizer_closure.h"

namespace ywb {

at::Tensor ForeachAdamW::step(LossClosure closure) {
  for (auto& group : param_groups_) {
    if (static_cast<torch::optim::AdamWOptions&>(group.options()).amsgrad()) {
      return torch::optim::AdamW::step(closure);  // not used by the trainer; LibTorch's own loop
    }
  }
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    auto& o = static_cast<torch::optim::AdamWOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    auto by_step = adamBatchesByStep<torch::optim::AdamWParamState>(group, state_, "AdamW");
    for (auto& [step, b] : by_step) {
      // Step weight decay: p *= 1 - lr * weight_decay
      if (o.weight_decay() != 0) at::_foreach_mul_(b.params, 1 - o.lr() * o.weight_decay());
      foreachAdamUpdate(b.params, b.grads, b.exp_avg, b.exp_avg_sq, step, o.lr(), beta1, beta2, o.eps());
    }
  }
  return loss;
}

void foreachAdamUpdate(std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                       std::vector<at::Tensor>& exp_avg, std::vector<at::Tensor>& exp_avg_sq, int64_t step,
                       double lr, double beta1, double beta2, double eps) {
  const double bias_correction1 = 1 - std::pow(beta1, double(step));
  const double bias_correction2 = 1 - std::pow(beta2, double(step));
  // The moments: m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
  foreachFirstMoment(exp_avg, grads, beta1);
  foreachSecondMoment(exp_avg_sq, grads, beta2);
  // p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)
  std::vector<at::Tensor> denom = at::_foreach_sqrt(exp_avg_sq);
  at::_foreach_div_(denom, std::sqrt(bias_correction2));
  at::_foreach_add_(denom, eps);
  at::_foreach_addcdiv_(params, exp_avg, denom, -(lr / bias_correction1));
}

}  // namespace ywb
