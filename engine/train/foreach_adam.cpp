#include "train/foreach_adam.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "core/torch_compat.h"
#include "train/adam_batches.h"
#include "train/foreach_adamw.h"
#include "train/optimizer_closure.h"

namespace ywb {

at::Tensor ForeachAdam::step(LossClosure closure) {
  for (auto& group : param_groups_)
    if (static_cast<torch::optim::AdamOptions&>(group.options()).amsgrad())
      return torch::optim::Adam::step(closure);  // not used by the trainer; LibTorch's own loop
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    auto& o = static_cast<torch::optim::AdamOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    for (auto& [step, b] : adamBatchesByStep<torch::optim::AdamParamState>(group, state_, "Adam")) {
      // L2 decay: the gradient gets weight_decay * p (a new tensor; the stored gradient is unchanged)
      const std::vector<at::Tensor> grads =
          o.weight_decay() != 0 ? at::_foreach_add(b.grads, b.params, o.weight_decay()) : b.grads;
      foreachAdamUpdate(b.params, grads, b.exp_avg, b.exp_avg_sq, step, o.lr(), beta1, beta2, o.eps());
    }
  }
  return loss;
}

at::Tensor ForeachRMSprop::step(LossClosure closure) {
  for (auto& group : param_groups_)
    if (static_cast<torch::optim::RMSpropOptions&>(group.options()).centered())
      return torch::optim::RMSprop::step(closure);  // not used by the trainer; LibTorch's own loop
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    auto& o = static_cast<torch::optim::RMSpropOptions&>(group.options());
    std::vector<at::Tensor> params, grads, square_avg, bufs;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      TORCH_CHECK(!p.grad().is_sparse(), "RMSprop does not support sparse gradients");
      const auto key = compat::optimizerStateKey(state_, p);
      auto it = state_.find(key);
      if (it == state_.end()) {
        auto st = std::make_unique<torch::optim::RMSpropParamState>();
        st->step(0);
        st->square_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
        it = state_.emplace(key, std::move(st)).first;
      }
      auto& st = static_cast<torch::optim::RMSpropParamState&>(*it->second);
      // The buffer exists once momentum is on (Ultralytics' warmup starts it at 0.8, never 0).
      if (o.momentum() > 0 && !st.momentum_buffer().defined())
        st.momentum_buffer(at::zeros_like(p, at::MemoryFormat::Preserve));
      st.step(st.step() + 1);
      params.push_back(p.data());
      grads.push_back(p.grad().data());
      square_avg.push_back(st.square_avg());
      if (o.momentum() > 0) bufs.push_back(st.momentum_buffer());
    }
    if (params.empty()) continue;
    if (o.weight_decay() != 0) grads = at::_foreach_add(grads, params, o.weight_decay());
    // v = alpha v + (1 - alpha) g^2;  avg = sqrt(v) + eps
    at::_foreach_mul_(square_avg, o.alpha());
    at::_foreach_addcmul_(square_avg, grads, grads, 1 - o.alpha());
    std::vector<at::Tensor> avg = at::_foreach_sqrt(square_avg);
    at::_foreach_add_(avg, o.eps());
    if (o.momentum() > 0) {  // buf = momentum buf + g / avg;  p -= lr buf
      at::_foreach_mul_(bufs, o.momentum());
      at::_foreach_addcdiv_(bufs, grads, avg);
      at::_foreach_add_(params, bufs, -o.lr());
    } else {  // p -= lr g / avg
      at::_foreach_addcdiv_(params, grads, avg, -o.lr());
    }
  }
  return loss;
}

}  // namespace ywb
