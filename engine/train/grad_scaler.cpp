#include "train/grad_scaler.h"

#include <torch/autograd.h>

namespace ywb {

GradScaler::GradScaler(bool enabled, double init_scale, double growth_factor, double backoff_factor,
                       int64_t growth_interval)
    : enabled_(enabled),
      scale_(init_scale),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor),
      growth_interval_(growth_interval) {}

at::Tensor GradScaler::scale(const at::Tensor& loss) {
  return enabled_ ? loss * scale_ : loss;
}

void GradScaler::unscale(torch::optim::Optimizer& opt) {
  if (!enabled_ || unscaled_) return;
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (auto& group : opt.param_groups()) {
    for (auto& p : group.params()) {
      if (p.grad().defined()) grads.push_back(p.grad());
    }
  }
  if (grads.empty()) return;
  at::_foreach_mul_(grads, 1.0 / scale_);
  // One all-finite reduction per tensor, combined on the device: no host sync until step().
  at::Tensor all_finite = at::ones({}, grads[0].options().dtype(at::kBool));
  for (auto& g : grads) all_finite = all_finite.logical_and(g.isfinite().all());
  found_inf_ = all_finite.logical_not();
  unscaled_ = true;
}

bool GradScaler::step(torch::optim::Optimizer& opt) {
  if (!enabled_) {
    opt.step();
    return true;
  }
  if (!unscaled_) unscale(opt);
  last_found_inf_ = found_inf_.defined() && found_inf_.item<bool>();
  if (last_found_inf_) {
    ++skipped_;
    return false;
  }
  opt.step();
  return true;
}

void GradScaler::update() {
  if (!enabled_) return;
  if (last_found_inf_) {
    scale_ *= backoff_factor_;
    growth_tracker_ = 0;
  } else if (++growth_tracker_ >= growth_interval_) {
    scale_ *= growth_factor_;
    growth_tracker_ = 0;
  }
  unscaled_ = false;
  last_found_inf_ = false;
  found_inf_ = at::Tensor();
}

}  // namespace ywb
