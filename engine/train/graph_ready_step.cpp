#include "train/graph_ready_step.h"

#include <torch/autograd.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/torch_compat.h"
#include "train/foreach_adamw.h"
#include "train/foreach_sgd.h"
#include "train/grad_clip.h"
#include "train/musgd.h"
#include "train/newton_schulz.h"
#include "train/optimizer_factory.h"

namespace ywb {

bool graphReadyStepSupports(torch::optim::Optimizer& opt) {
  return dynamic_cast<ForeachAdamW*>(&opt) || dynamic_cast<MuSGD*>(&opt) || dynamic_cast<ForeachSGD*>(&opt);
}
namespace {

using compat::foreachMulByScalarTensor;
using compat::foreachTimesScalarTensor;

void divideBy(std::vector<at::Tensor>& ts, const at::Tensor& divisor) {
  for (auto& t : ts) t.div_(divisor);  // a true division, as the eager step's division by a host number
}

// where(cond, a, b) for a 0-dim bool `cond` and fp64 0-dim `b`, in `b`'s type.
at::Tensor pick(const at::Tensor& cond, double a, const at::Tensor& b) {
  return at::where(cond, at::scalar_tensor(a, b.options()), b);
}

std::string describeParam(size_t group, size_t index) {
  return "group " + std::to_string(group) + ", parameter " + std::to_string(index);
}

}  // namespace

GraphReadyStep::GraphReadyStep(torch::optim::Optimizer& opt, torch::nn::Module& model, ModelEma& ema,
                               const GradScaler& scaler, double max_norm)
    : opt_(opt),
      model_(model),
      max_norm_(max_norm),
      ema_decay_(ema.decay()),
      ema_tau_(ema.tau()),
      scaling_(scaler.enabled()),
      growth_factor_(scaler.growthFactor()),
      backoff_factor_(scaler.backoffFactor()),
      growth_interval_(scaler.growthInterval()) {
  adamw_ = dynamic_cast<ForeachAdamW*>(&opt) != nullptr;
  musgd_ = dynamic_cast<MuSGD*>(&opt) != nullptr;
  if (!graphReadyStepSupports(opt))
    fail("graph-ready step: only SGD, AdamW and MuSGD can step inside a graph");
  at::TensorOptions dev;
  const size_t ng = opt.param_groups().size();
  auto& state = opt.state();
  for (size_t gi = 0; gi < ng; ++gi) {
    auto& pg = opt.param_groups()[gi];
    Group g;
    int64_t adam_step = -1;
    for (size_t k = 0; k < pg.params().size(); ++k) {
      const at::Tensor& p = pg.params()[k];
      if (!p.grad().defined())
        fail("graph-ready step: " + describeParam(gi, k) +
             " has no gradient; every parameter needs one, from an eager step run first");
      const auto it = state.find(compat::optimizerStateKey(state, p));
      if (it == state.end())
        fail("graph-ready step: " + describeParam(gi, k) +
             " has no optimizer state; run one eager step first");
      g.params.push_back(p.data());
      g.grads.push_back(p.grad().data());
      if (adamw_) {
        auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
        if (adam_step >= 0 && st.step() != adam_step)
          fail("graph-ready step: AdamW's step counts differ within group " + std::to_string(gi));
        adam_step = st.step();
        g.exp_avg.push_back(st.exp_avg());
        g.exp_avg_sq.push_back(st.exp_avg_sq());
      } else if (musgd_) {
        auto& st = static_cast<MuSGDParamState&>(*it->second);
        g.bufs.push_back(st.momentum_buffer());
        if (static_cast<const MuSGDOptions&>(pg.options()).use_muon())
          g.muon_bufs.push_back(st.muon_buffer());
      } else {
        g.bufs.push_back(static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer());
      }
      dev = p.options();
    }
    if (adamw_) {
      auto& o = static_cast<torch::optim::AdamWOptions&>(pg.options());
      if (o.amsgrad()) fail("graph-ready step: AdamW with amsgrad is not supported");
      g.weight_decay = o.weight_decay();
      g.eps = o.eps();
      g.beta1 = std::get<0>(o.betas());
      g.beta2 = std::get<1>(o.betas());
      g.adam_step = at::scalar_tensor(double(std::max<int64_t>(0, adam_step)), dev.dtype(at::kDouble));
    } else {
      auto& o = static_cast<torch::optim::SGDOptions&>(pg.options());  // MuSGDOptions derives from it
      g.weight_decay = o.weight_decay();
      g.dampening = o.dampening();
      g.nesterov = o.nesterov();
      if (const auto* m = dynamic_cast<const MuSGDOptions*>(&o); m && m->use_muon()) {
        g.muon = m->muon();
        g.sgd = m->sgd();
        for (size_t k = 0; k < g.muon_bufs.size(); ++k)
          if (!g.muon_bufs[k].defined())
            fail("graph-ready step: " + describeParam(gi, k) +
                 " has no Muon state; run one eager step first");
      }
    }
    all_params_.insert(all_params_.end(), g.params.begin(), g.params.end());
    all_grads_.insert(all_grads_.end(), g.grads.begin(), g.grads.end());
    groups_.push_back(std::move(g));
  }
  if (all_params_.empty()) fail("graph-ready step: the optimizer has no parameters");
  ema_state_ = ema.averaged();
  for (auto& t : ModelEma::floatState(model)) ema_src_.push_back(t.detach());
  const at::TensorOptions f64 = dev.dtype(at::kDouble);
  scalars_ = at::zeros({int64_t(2 * ng)}, f64);
  scale_ = at::scalar_tensor(scaler.currentScale(), f64);
  growth_ = at::scalar_tensor(double(scaler.growthTracker()), f64);
  ema_updates_ = at::scalar_tensor(double(ema.updates()), f64);
  loss_bad_ = at::zeros({}, dev.dtype(at::kBool));
  counts_ = at::zeros({3}, dev.dtype(at::kLong));
}

void GraphReadyStep::prepare() {
  const size_t ng = groups_.size();
  // A new host tensor each step: on CUDA a pinned block that the caching host allocator does not hand out
  // again before its asynchronous copy has run (one reused buffer could be rewritten while still being read).
  at::Tensor host = at::empty({int64_t(2 * ng)}, at::TensorOptions().dtype(at::kDouble));
  double* h = host.data_ptr<double>();
  for (size_t i = 0; i < ng; ++i) {
    h[i] = groupLr(opt_, i);
    h[ng + i] = groupMomentum(opt_, i);
    // AdamW's betas are constants of the step (the schedule never sets them): a change would be ignored
    if (adamw_ && h[ng + i] != groups_[i].beta1)
      fail("graph-ready step: AdamW's beta1 of group " + std::to_string(i) + " changed after capture");
  }
  if (scalars_.is_cuda()) host = host.pin_memory();
  scalars_.copy_(host, /*non_blocking=*/true);
}

at::Tensor GraphReadyStep::scaleLoss(const at::Tensor& loss) {
  {
    torch::NoGradGuard no_grad;
    loss_bad_.logical_or_(loss.detach().isfinite().logical_not().any());
  }
  return scaling_ ? loss * scale_.to(loss.scalar_type()) : loss;
}

void GraphReadyStep::step() {
  torch::NoGradGuard no_grad;
  // Unscale by the device-held scale (1 / scale in fp64, then the gradients' type, as the eager step's host
  // number), then the eager step's own clipping.
  if (scaling_) foreachMulByScalarTensor(all_grads_, scale_.reciprocal().to(at::kFloat));
  const at::Tensor norm = clipGradNorm(model_.parameters(), max_norm_);
  // GradScaler::step's decision, on the device: a NaN/Inf loss, or NaN/Inf gradients without scaling, is a
  // bad step (no optimizer step, no EMA update); NaN/Inf gradients behind finite losses with scaling are an
  // overflow (no optimizer step; the EMA still updates, as Ultralytics'; the scale backs off).
  const at::Tensor grads_bad = norm.isfinite().logical_not();
  const at::Tensor nonfinite = scaling_ ? loss_bad_.clone() : loss_bad_.logical_or(grads_bad);
  const at::Tensor overflow =
      scaling_ ? grads_bad.logical_and(loss_bad_.logical_not()) : at::zeros_like(grads_bad);
  const at::Tensor found = grads_bad.logical_or(loss_bad_);
  const at::Tensor keep = found.logical_not().to(at::kDouble);
  // A skipped step's gradients become zeros, so that it multiplies by 1 and adds 0 below.
  for (auto& g : all_grads_) g.masked_fill_(found, 0);
  if (musgd_) muonUpdates(keep, found);  // MuSGD: every group's Muon update first, then the SGD ones
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i].params.empty()) continue;  // (MuSGD's class-branch groups of a model without some)
    if (adamw_)
      adamwGroup(groups_[i], i, keep, found);
    else
      sgdGroup(groups_[i], i, keep, found);
  }
  updateEma(nonfinite);
  if (scaling_) {  // GradScaler::update: back off after an overflow, grow after growth_interval clean steps
    scale_.copy_(at::where(grads_bad, scale_ * backoff_factor_, scale_));
    growth_.copy_(pick(grads_bad, 0.0, growth_ + 1));
    const at::Tensor grow = growth_.ge(double(growth_interval_));
    scale_.copy_(at::where(grow, scale_ * growth_factor_, scale_));
    growth_.copy_(pick(grow, 0.0, growth_));
  }
  counts_.add_(at::stack({found.logical_not(), overflow, nonfinite}).to(at::kLong));
  at::_foreach_zero_(all_grads_);
  loss_bad_.zero_();
}

// ForeachSGD's arithmetic with the group's learning rate and momentum read from the device.
void GraphReadyStep::sgdGroup(Group& g, size_t i, const at::Tensor& keep, const at::Tensor& found) {
  const int64_t ng = int64_t(groups_.size());
  const at::Tensor lr = scalars_[int64_t(i)], momentum = scalars_[ng + int64_t(i)];
  // d_p = grad + weight_decay * p, zero for a skipped step
  std::vector<at::Tensor> d_p = g.grads;
  if (g.weight_decay != 0) {
    d_p = at::_foreach_add(g.grads, g.params, g.weight_decay);
    foreachMulByScalarTensor(d_p, keep.to(at::kFloat));
  }
  // buf = momentum * buf + (1 - dampening) * d_p; a skipped step multiplies by 1
  foreachMulByScalarTensor(g.bufs, pick(found, 1.0, momentum).to(at::kFloat));
  at::_foreach_add_(g.bufs, d_p, 1 - g.dampening);
  std::vector<at::Tensor> update =
      g.nesterov ? at::_foreach_add(d_p, foreachTimesScalarTensor(g.bufs, momentum.to(at::kFloat))) : g.bufs;
  // p -= lr * sgd * update (sgd: MuSGD's weight of the SGD update, 1 otherwise); a skipped step's rate is 0
  at::_foreach_add_(g.params, foreachTimesScalarTensor(update, (lr * g.sgd * keep).neg().to(at::kFloat)));
}

// MuSGD::muonUpdate with the momentum and learning rate read from the device: buf += (1 - m)(g - buf), the
// Nesterov update g + m (buf - g), every matrix orthogonalised in one call, p -= lr * muon * orth. A skipped
// step's gradients are zeros, its buffer weight and rate 0.
void GraphReadyStep::muonUpdates(const at::Tensor& keep, const at::Tensor& found) {
  const int64_t ng = int64_t(groups_.size());
  std::vector<at::Tensor> matrices, rates(groups_.size());  // rates: -lr * muon, 0 for a skipped step
  std::vector<std::pair<size_t, size_t>> owner;
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group& g = groups_[i];
    if (g.muon == 0 || g.params.empty()) continue;
    const at::Tensor m = scalars_[ng + int64_t(i)];
    const at::Tensor into_buf = pick(found, 0.0, 1 - m).to(at::kFloat), m_f = m.to(at::kFloat);
    rates[i] = (scalars_[int64_t(i)] * g.muon * keep).neg().to(at::kFloat);
    for (size_t k = 0; k < g.params.size(); ++k) {
      g.muon_bufs[k].lerp_(g.grads[k], into_buf);
      const at::Tensor u = g.nesterov ? g.grads[k].lerp(g.muon_bufs[k], m_f) : g.muon_bufs[k];
      matrices.push_back(u.reshape({u.size(0), -1}));
      owner.emplace_back(i, k);
    }
  }
  const std::vector<at::Tensor> orth = newtonSchulz5(matrices);
  for (size_t j = 0; j < orth.size(); ++j) {
    const auto [i, k] = owner[j];
    const at::Tensor& p = groups_[i].params[k];
    p.add_(orth[j].view(p.sizes()) * rates[i]);
  }
}

// ForeachAdamW's arithmetic with the learning rate from the device and the step count kept there.
void GraphReadyStep::adamwGroup(Group& g, size_t i, const at::Tensor& keep, const at::Tensor& found) {
  const at::Tensor lr = scalars_[int64_t(i)];
  g.adam_step.add_(keep);
  if (g.weight_decay != 0)  // p *= 1 - lr * weight_decay
    foreachMulByScalarTensor(g.params, pick(found, 1.0, 1 - lr * g.weight_decay).to(at::kFloat));
  // m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2 (a skipped step: m and v times 1, plus 0)
  foreachMulByScalarTensor(g.exp_avg,
                           pick(found, 1.0, at::scalar_tensor(g.beta1, lr.options())).to(at::kFloat));
  at::_foreach_add_(g.exp_avg, g.grads, 1 - g.beta1);
  foreachMulByScalarTensor(g.exp_avg_sq,
                           pick(found, 1.0, at::scalar_tensor(g.beta2, lr.options())).to(at::kFloat));
  at::_foreach_addcmul_(g.exp_avg_sq, g.grads, g.grads, 1 - g.beta2);
  // p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps), the bias corrections from the device's step count
  const at::Tensor bc1 = 1 - at::pow(g.beta1, g.adam_step);
  const at::Tensor bc2 = 1 - at::pow(g.beta2, g.adam_step);
  std::vector<at::Tensor> denom = at::_foreach_sqrt(g.exp_avg_sq);
  divideBy(denom, bc2.sqrt().to(at::kFloat));
  at::_foreach_add_(denom, g.eps);
  std::vector<at::Tensor> q = at::_foreach_div(g.exp_avg, denom);
  foreachMulByScalarTensor(q, (lr / bc1 * keep).neg().to(at::kFloat));
  at::_foreach_add_(g.params, q);
}

// ModelEma::update with the decay computed from the device's update count; a NaN/Inf step leaves it as is.
void GraphReadyStep::updateEma(const at::Tensor& nonfinite) {
  const at::Tensor d = ema_decay_ * (1 - ((ema_updates_ + 1).neg() / ema_tau_).exp());
  ema_updates_.add_(nonfinite.logical_not().to(at::kDouble));
  foreachMulByScalarTensor(ema_state_, pick(nonfinite, 1.0, d).to(at::kFloat));
  // (1 - d) * w, zeroed for a NaN/Inf step: its BatchNorm statistics may be NaN (a NaN forward pass wrote
  // them; the trainer puts them back after the step), and NaN * 0 is NaN
  std::vector<at::Tensor> add =
      foreachTimesScalarTensor(ema_src_, pick(nonfinite, 0.0, 1 - d).to(at::kFloat));
  for (auto& t : add) t.masked_fill_(nonfinite, 0);
  at::_foreach_add_(ema_state_, add);
}

GraphStepCounts GraphReadyStep::counts() const {
  const at::Tensor c = counts_.to(at::kCPU);
  const int64_t* p = c.data_ptr<int64_t>();
  return {p[0], p[1], p[2]};
}

void GraphReadyStep::syncBack(torch::optim::Optimizer& opt, ModelEma& ema, GradScaler& scaler) const {
  std::vector<at::Tensor> parts{scale_.reshape({1}), growth_.reshape({1}), ema_updates_.reshape({1})};
  for (const auto& g : groups_)
    if (g.adam_step.defined()) parts.push_back(g.adam_step.reshape({1}));
  const at::Tensor h = at::cat(parts).to(at::kCPU);
  const double* v = h.data_ptr<double>();
  scaler.restore(v[0], int64_t(v[1]));
  ema.setUpdates(int64_t(v[2]));
  if (!adamw_) return;
  auto& state = opt.state();
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    for (const auto& p : opt.param_groups()[gi].params()) {
      auto& st = static_cast<torch::optim::AdamWParamState&>(*state.at(compat::optimizerStateKey(state, p)));
      st.step(int64_t(v[3 + gi]));
    }
  }
}

}  // namespace ywb
