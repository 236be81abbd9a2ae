#include "train/musgd.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <map>
#include <utility>

#include "core/error.h"
#include "core/torch_compat.h"
#include "train/newton_schulz.h"
#include "train/optimizer_closure.h"

namespace ywb {

MuSGD::MuSGD(std::vector<torch::optim::OptimizerParamGroup> groups, const MuSGDOptions& defaults)
    : torch::optim::Optimizer(std::move(groups), std::make_unique<MuSGDOptions>(defaults)) {
  for (auto& g : param_groups_) {
    const auto* o = dynamic_cast<const MuSGDOptions*>(&g.options());
    if (!o) fail("MuSGD: a parameter group has options of another optimizer");
    if (o->dampening() != 0) fail("MuSGD: dampening is not supported");
    if (o->lr() < 0 || o->momentum() < 0 || o->weight_decay() < 0)
      fail("MuSGD: lr, momentum and weight_decay must be >= 0");
  }
}

MuSGDParamState& MuSGD::stateOf(const at::Tensor& p) {
  const auto key = compat::optimizerStateKey(state_, p);
  auto it = state_.find(key);
  if (it == state_.end()) it = state_.emplace(key, std::make_unique<MuSGDParamState>()).first;
  return static_cast<MuSGDParamState&>(*it->second);
}

at::Tensor MuSGD::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const MuSGDOptions&>(group.options());
    std::vector<at::Tensor> params, grads;
    std::vector<MuSGDParamState*> states;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p.data());
      grads.push_back(p.grad().data());
      states.push_back(&stateOf(p));
    }
    if (params.empty()) continue;
    if (o.use_muon()) muonUpdate(o, params, grads, states);
    sgdUpdate(o, params, grads, states, o.use_muon() ? o.sgd() : 1.0);
  }
  return loss;
}

void MuSGD::muonUpdate(const MuSGDOptions& o, const std::vector<at::Tensor>& params,
                       const std::vector<at::Tensor>& grads, const std::vector<MuSGDParamState*>& states) {
  const double m = o.momentum();
  // The matrices to orthogonalise, by shape [rows, rest]: each shape becomes one batch.
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> by_shape;
  std::vector<at::Tensor> updates(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    MuSGDParamState& st = *states[i];
    if (!st.muon_buffer().defined()) st.muon_buffer(at::zeros_like(params[i], at::MemoryFormat::Preserve));
    st.muon_buffer().lerp_(grads[i], 1 - m);  // buf += (1 - m) (g - buf)
    updates[i] = o.nesterov() ? grads[i].lerp(st.muon_buffer(), m) : st.muon_buffer();
    const int64_t rows = params[i].size(0);
    by_shape[{rows, rows ? params[i].numel() / rows : 0}].push_back(i);
  }
  const double alpha = -o.lr() * o.muon();
  for (const auto& [shape, members] : by_shape) {
    std::vector<at::Tensor> mats;
    mats.reserve(members.size());
    for (size_t i : members) mats.push_back(updates[i].reshape({shape.first, shape.second}));
    const at::Tensor orth = newtonSchulz5(at::stack(mats));
    for (size_t j = 0; j < members.size(); ++j) {
      at::Tensor& p = const_cast<at::Tensor&>(params[members[j]]);
      p.add_(orth[int64_t(j)].view(p.sizes()), alpha);
    }
  }
}

// torch::optim::SGD's arithmetic to the bit (as ForeachSGD), on the parameters as they are now: for use_muon
// groups the weight decay sees the parameter after the Muon update.
void MuSGD::sgdUpdate(const MuSGDOptions& o, std::vector<at::Tensor>& params,
                      const std::vector<at::Tensor>& grads, const std::vector<MuSGDParamState*>& states,
                      double weight) {
  // d = grad + weight_decay * p (a new tensor, as SGD's out-of-place add)
  std::vector<at::Tensor> d_p =
      o.weight_decay() != 0 ? at::_foreach_add(grads, params, o.weight_decay()) : grads;
  if (o.momentum() != 0) {
    std::vector<at::Tensor> bufs(params.size()), old_bufs, old_d_p;
    for (size_t i = 0; i < params.size(); ++i) {
      MuSGDParamState& st = *states[i];
      if (!st.momentum_buffer().defined()) {  // first step: the buffer starts as d
        st.momentum_buffer(d_p[i].clone().detach());
      } else {
        old_bufs.push_back(st.momentum_buffer());
        old_d_p.push_back(d_p[i]);
      }
      bufs[i] = st.momentum_buffer();
    }
    if (!old_bufs.empty()) {  // buf = momentum * buf + d
      at::_foreach_mul_(old_bufs, o.momentum());
      at::_foreach_add_(old_bufs, old_d_p, 1.0);
    }
    d_p = o.nesterov() ? at::_foreach_add(d_p, bufs, o.momentum()) : bufs;
  }
  at::_foreach_add_(params, d_p, -o.lr() * weight);
}

}  // namespace ywb
