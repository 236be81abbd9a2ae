#include "train/foreach_adamw.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <cmath>
#include <map>

#include "core/torch_compat.h"
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
    // Parameters by their step count (after this step): bias corrections are per step count, and every
    // parameter that always gets a gradient shares one.
    struct Batch {
      std::vector<at::Tensor> params, grads, exp_avg, exp_avg_sq;
    };
    std::map<int64_t, Batch> by_step;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      TORCH_CHECK(!p.grad().is_sparse(), "AdamW does not support sparse gradients");
      const auto key = compat::optimizerStateKey(state_, p);
      auto it = state_.find(key);
      if (it == state_.end()) {
        auto st = std::make_unique<torch::optim::AdamWParamState>();
        st->step(0);
        st->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
        st->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
        it = state_.emplace(key, std::move(st)).first;
      }
      auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
      st.step(st.step() + 1);
      Batch& b = by_step[st.step()];
      b.params.push_back(p.data());
      b.grads.push_back(p.grad().data());
      b.exp_avg.push_back(st.exp_avg());
      b.exp_avg_sq.push_back(st.exp_avg_sq());
    }
    for (auto& [step, b] : by_step) {
      // Step weight decay: p *= 1 - lr * weight_decay
      if (o.weight_decay() != 0) at::_foreach_mul_(b.params, 1 - o.lr() * o.weight_decay());
      const double bias_correction1 = 1 - std::pow(beta1, double(step));
      const double bias_correction2 = 1 - std::pow(beta2, double(step));
      // The moments: m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
      at::_foreach_mul_(b.exp_avg, beta1);
      at::_foreach_add_(b.exp_avg, b.grads, 1 - beta1);
      at::_foreach_mul_(b.exp_avg_sq, beta2);
      at::_foreach_addcmul_(b.exp_avg_sq, b.grads, b.grads, 1 - beta2);
      // p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)
      std::vector<at::Tensor> denom = at::_foreach_sqrt(b.exp_avg_sq);
      at::_foreach_div_(denom, std::sqrt(bias_correction2));
      at::_foreach_add_(denom, o.eps());
      at::_foreach_addcdiv_(b.params, b.exp_avg, denom, -(o.lr() / bias_correction1));
    }
  }
  return loss;
}

}  // namespace ywb
