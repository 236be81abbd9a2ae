#include "train/foreach_sgd.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include "core/torch_compat.h"
#include "train/optimizer_closure.h"

namespace ywb {

at::Tensor ForeachSGD::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    auto& o = static_cast<torch::optim::SGDOptions&>(group.options());
    std::vector<at::Tensor> params, grads;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p.data());
      grads.push_back(p.grad().data());
    }
    if (params.empty()) continue;
    // d_p = grad + weight_decay * p (a new tensor, as torch::optim::SGD's out-of-place add)
    std::vector<at::Tensor> d_p =
        o.weight_decay() != 0 ? at::_foreach_add(grads, params, o.weight_decay()) : grads;
    if (o.momentum() != 0) {
      std::vector<at::Tensor> bufs(params.size()), old_bufs, old_d_p;
      size_t i = 0;
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        const auto key = compat::optimizerStateKey(state_, p);
        auto it = state_.find(key);
        if (it == state_.end()) {  // first step: the buffer starts as d_p
          bufs[i] = d_p[i].clone().detach();
          auto st = std::make_unique<torch::optim::SGDParamState>();
          st->momentum_buffer(bufs[i]);
          state_[key] = std::move(st);
        } else {
          bufs[i] = static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
          old_bufs.push_back(bufs[i]);
          old_d_p.push_back(d_p[i]);
        }
        ++i;
      }
      if (!old_bufs.empty()) {  // buf = momentum * buf + (1 - dampening) * d_p
        at::_foreach_mul_(old_bufs, o.momentum());
        at::_foreach_add_(old_bufs, old_d_p, 1 - o.dampening());
      }
      d_p = o.nesterov() ? at::_foreach_add(d_p, bufs, o.momentum()) : bufs;
    }
    at::_foreach_add_(params, d_p, -1 * o.lr());
  }
  return loss;
}

}  // namespace ywb
