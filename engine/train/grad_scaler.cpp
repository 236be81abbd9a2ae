#include "train/grad_scaler.h"

#include <torch/autograd.h>

namespace ywb {
namespace {

std::vector<at::Tensor> gradsOf(torch::optim::Optimizer& opt) {
  std::vector<at::Tensor> grads;
  for (auto& group : opt.param_groups()) {
    for (auto& p : group.params()) {
      if (p.grad().defined()) grads.push_back(p.grad());
    }
  }
  return grads;
}

}  // namespace

GradScaler::GradScaler(bool enabled, double init_scale, double growth_factor, double backoff_factor,
                       int64_t growth_interval)
    : enabled_(enabled),
      scale_(init_scale),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor),
      growth_interval_(growth_interval) {}

at::Tensor GradScaler::scale(const at::Tensor& loss) {
  {
    torch::NoGradGuard no_grad;
    const at::Tensor bad = loss.detach().isfinite().logical_not().any();
    loss_bad_ = loss_bad_.defined() ? loss_bad_.logical_or(bad) : bad;
  }
  return enabled_ ? loss * scale_ : loss;
}

void GradScaler::unscale(torch::optim::Optimizer& opt) {
  if (!enabled_ || unscaled_) return;
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> grads = gradsOf(opt);
  if (!grads.empty()) at::_foreach_mul_(grads, 1.0 / scale_);
  unscaled_ = true;
}

StepOutcome GradScaler::step(torch::optim::Optimizer& opt, const at::Tensor& grad_norm,
                             const std::function<bool(bool)>& agree) {
  if (!unscaled_) unscale(opt);
  update_pending_ = true;
  at::Tensor norm = grad_norm;
  if (!norm.defined()) {
    torch::NoGradGuard no_grad;
    const std::vector<at::Tensor> grads = gradsOf(opt);
    if (!grads.empty()) {
      const std::vector<at::Tensor> norms = at::_foreach_norm(grads, 2);
      norm = norms.size() == 1 ? norms[0] : at::stack(norms).norm(2);
    }
  }
  // One host read for both flags. A total norm is finite exactly when every gradient is (short of an
  // overflow of the sum itself, at norms beyond 1e19 that no useful step has).
  bool grads_bad = false, loss_bad = false;
  if (norm.defined() || loss_bad_.defined()) {
    const at::Tensor g =
        norm.defined() ? norm.isfinite().logical_not().reshape({1}) : at::zeros({1}, loss_bad_.options());
    const at::Tensor l =
        loss_bad_.defined() ? loss_bad_.reshape({1}).to(g.device()) : at::zeros({1}, g.options());
    const at::Tensor both = at::cat({g, l}).to(at::kCPU);
    grads_bad = both[0].item<bool>();
    loss_bad = both[1].item<bool>();
  }
  if (agree) loss_bad = agree(loss_bad);
  last_grads_bad_ = grads_bad;
  if (loss_bad || (grads_bad && !enabled_)) {
    ++non_finite_;
    return StepOutcome::NonFinite;
  }
  if (grads_bad) {
    ++skipped_;
    return StepOutcome::Overflow;
  }
  opt.step();
  return StepOutcome::Stepped;
}

void GradScaler::update() {
  if (enabled_ && update_pending_) {
    if (last_grads_bad_) {  // inf/NaN in the scaled gradients: a smaller scale, as PyTorch's GradScaler
      scale_ *= backoff_factor_;
      growth_tracker_ = 0;
    } else if (++growth_tracker_ >= growth_interval_) {
      scale_ *= growth_factor_;
      growth_tracker_ = 0;
    }
  }
  unscaled_ = false;
  update_pending_ = false;
  last_grads_bad_ = false;
  loss_bad_ = at::Tensor();
}

}  // namespace ywb
