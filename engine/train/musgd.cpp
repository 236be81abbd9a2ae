#include "train/musgd.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <iterator>
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
  std::vector<GroupWork> work;
  for (auto& group : param_groups_) {
    GroupWork w{&static_cast<const MuSGDOptions&>(group.options()), {}, {}, {}};
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      w.params.push_back(p.data());
      w.grads.push_back(p.grad().data());
      w.states.push_back(&stateOf(p));
    }
    if (!w.params.empty()) work.push_back(std::move(w));
  }
  muonUpdate(work);
  for (auto& w : work)
    sgdUpdate(*w.options, w.params, w.grads, w.states, w.options->use_muon() ? w.options->sgd() : 1.0);
  return loss;
}

// Every parameter is updated from its own gradient and state alone, so the Muon updates of all groups can go
// first (the matrices orthogonalised in one call), then the SGD updates: the same numbers as the reference's
// parameter-by-parameter loop. Each group's momentum updates are one call for all its matrices (on a GPU a
// few multi-tensor kernels instead of two per matrix: compat::foreachLerp_).
void MuSGD::muonUpdate(const std::vector<GroupWork>& work) {
  std::vector<at::Tensor> matrices;
  std::vector<std::pair<const GroupWork*, size_t>> owner;
  for (const auto& w : work) {
    if (!w.options->use_muon()) continue;
    const double m = w.options->momentum();
    std::vector<at::Tensor> bufs;
    bufs.reserve(w.params.size());
    for (size_t i = 0; i < w.params.size(); ++i) {
      MuSGDParamState& st = *w.states[i];
      if (!st.muon_buffer().defined())
        st.muon_buffer(at::zeros_like(w.params[i], at::MemoryFormat::Preserve));
      bufs.push_back(st.muon_buffer());
      owner.emplace_back(&w, i);
    }
    compat::foreachLerp_(bufs, w.grads, 1 - m);  // buf += (1 - m) (g - buf)
    // Taken as [rows, numel / rows] (newton_schulz.h).
    std::vector<at::Tensor> u = w.options->nesterov() ? compat::foreachLerp(w.grads, bufs, m) : bufs;
    matrices.insert(matrices.end(), std::make_move_iterator(u.begin()), std::make_move_iterator(u.end()));
  }
  const std::vector<at::Tensor> orth = newtonSchulz5(matrices);
  for (size_t j = 0; j < orth.size(); ++j) {
    const auto& [w, i] = owner[j];
    const at::Tensor& p = w->params[i];
    p.add_(orth[j], -w->options->lr() * w->options->muon());
  }
}

// torch::optim::SGD's arithmetic to the bit (as ForeachSGD), on the parameters as they are now: for use_muon
// groups the weight decay sees the parameter after the Muon update.
void MuSGD::sgdUpdate(const MuSGDOptions& o, const std::vector<at::Tensor>& params,
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
