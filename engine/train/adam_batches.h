// One optimizer group's parameters gathered by their step count after this step, with their Adam-style state
// created on first use (zero moments, as LibTorch's Adam and AdamW): bias corrections depend on the step
// count, and every parameter that always gets a gradient shares one, so each batch is a few multi-tensor
// kernels. Used by ForeachAdamW, ForeachAdam and AdamVariant. Thread rules: the optimizer's (one thread).
#pragma once
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <memory>
#include <vector>

#include "core/torch_compat.h"

namespace ywb {

struct AdamBatch {
  std::vector<at::Tensor> params, grads, exp_avg, exp_avg_sq;
};

/// `State` has step, exp_avg and exp_avg_sq (TORCH_ARG style). Parameters without a gradient are skipped and
/// keep their step count; every other parameter's count goes up by one.
template <class State, class StateMap>
std::map<int64_t, AdamBatch> adamBatchesByStep(torch::optim::OptimizerParamGroup& group, StateMap& state,
                                               const char* optimizer) {
  std::map<int64_t, AdamBatch> by_step;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    TORCH_CHECK(!p.grad().is_sparse(), optimizer, " does not support sparse gradients");
    const auto key = compat::optimizerStateKey(state, p);
    auto it = state.find(key);
    if (it == state.end()) {
      auto st = std::make_unique<State>();
      st->step(0);
      st->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
      st->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
      it = state.emplace(key, std::move(st)).first;
    }
    auto& st = static_cast<State&>(*it->second);
    st.step(st.step() + 1);
    AdamBatch& b = by_step[st.step()];
    b.params.push_back(p.data());
    b.grads.push_back(p.grad().data());
    b.exp_avg.push_back(st.exp_avg());
    b.exp_avg_sq.push_back(st.exp_avg_sq());
  }
  return by_step;
}

/// The Adam family's first moment, m = beta1 m + (1 - beta1) g, in place (two roundings, as LibTorch's Adam).
inline void foreachFirstMoment(std::vector<at::Tensor>& exp_avg, const std::vector<at::Tensor>& grads,
                               double beta1) {
  at::_foreach_mul_(exp_avg, beta1);
  at::_foreach_add_(exp_avg, grads, 1 - beta1);
}

/// The second moment, v = beta2 v + (1 - beta2) g^2, in place.
inline void foreachSecondMoment(std::vector<at::Tensor>& exp_avg_sq, const std::vector<at::Tensor>& grads,
                                double beta2) {
  at::_foreach_mul_(exp_avg_sq, beta2);
  at::_foreach_addcmul_(exp_avg_sq, grads, grads, 1 - beta2);
}

}  // namespace ywb
