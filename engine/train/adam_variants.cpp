#include "train/adam_variants.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <cmath>

#include "core/error.h"
#include "train/adam_batches.h"
#include "train/optimizer_closure.h"

namespace ywb {
namespace {

// NAdam's momentum coefficient at step t: beta1 (1 - 0.5 x 0.96^(t psi)).
double nadamMu(double beta1, double psi, int64_t t) {
  return beta1 * (1.0 - 0.5 * std::pow(0.96, double(t) * psi));
}

void adamaxUpdate(AdamBatch& b, int64_t t, double lr, double beta1, double beta2, double eps) {
  // m = beta1 m + (1 - beta1) g;  u = max(beta2 u, |g| + eps);  p -= lr / (1 - beta1^t) m / u
  foreachFirstMoment(b.exp_avg, b.grads, beta1);
  at::_foreach_mul_(b.exp_avg_sq, beta2);
  std::vector<at::Tensor> norm = at::_foreach_abs(b.grads);
  at::_foreach_add_(norm, eps);
  at::_foreach_maximum_(b.exp_avg_sq, norm);
  at::_foreach_addcdiv_(b.params, b.exp_avg, b.exp_avg_sq, -lr / (1 - std::pow(beta1, double(t))));
}

void nadamUpdate(AdamBatch& b, int64_t t, double lr, double beta1, double beta2, double eps, double psi,
                 double mu_product) {
  const double mu = nadamMu(beta1, psi, t), mu_next = nadamMu(beta1, psi, t + 1);
  foreachFirstMoment(b.exp_avg, b.grads, beta1);
  foreachSecondMoment(b.exp_avg_sq, b.grads, beta2);
  // denom = sqrt(v / (1 - beta2^t)) + eps; the gradient's share and the momentum's, each with its product
  std::vector<at::Tensor> denom = at::_foreach_div(b.exp_avg_sq, 1 - std::pow(beta2, double(t)));
  at::_foreach_sqrt_(denom);
  at::_foreach_add_(denom, eps);
  at::_foreach_addcdiv_(b.params, b.grads, denom, -lr * (1 - mu) / (1 - mu_product));
  at::_foreach_addcdiv_(b.params, b.exp_avg, denom, -lr * mu_next / (1 - mu_product * mu_next));
}

void radamUpdate(AdamBatch& b, int64_t t, double lr, double beta1, double beta2, double eps) {
  foreachFirstMoment(b.exp_avg, b.grads, beta1);
  foreachSecondMoment(b.exp_avg_sq, b.grads, beta2);
  const double bc1 = 1 - std::pow(beta1, double(t)), bc2 = 1 - std::pow(beta2, double(t));
  // The length of the approximated simple moving average; past 5 the variance is rectified.
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * double(t) * std::pow(beta2, double(t)) / bc2;
  if (rho_t > 5) {
    const double rect =
        std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    // p -= lr rect (m / bc1) sqrt(bc2) / (sqrt(v) + eps)
    std::vector<at::Tensor> denom = at::_foreach_sqrt(b.exp_avg_sq);
    at::_foreach_add_(denom, eps);
    at::_foreach_addcdiv_(b.params, b.exp_avg, denom, -lr * rect * std::sqrt(bc2) / bc1);
  } else {  // p -= lr m / bc1
    at::_foreach_add_(b.params, b.exp_avg, -lr / bc1);
  }
}

}  // namespace

const char* adamVariantName(AdamVariantKind kind) {
  switch (kind) {
    case AdamVariantKind::Adamax:
      return "Adamax";
    case AdamVariantKind::NAdam:
      return "NAdam";
    case AdamVariantKind::RAdam:
      return "RAdam";
  }
  return "?";
}

double AdamVariant::nadamMuProduct(double beta1, double momentum_decay, int64_t t) {
  if (mu_products_.empty() || beta1 != mu_beta1_ || momentum_decay != mu_psi_) {
    mu_products_.assign(1, 1.0f);
    mu_beta1_ = beta1;
    mu_psi_ = momentum_decay;
  }
  // PyTorch keeps the product as a float32 tensor and multiplies it in place every step: the same roundings.
  while (int64_t(mu_products_.size()) <= t) {
    const int64_t i = int64_t(mu_products_.size());
    mu_products_.push_back(mu_products_.back() * static_cast<float>(nadamMu(beta1, momentum_decay, i)));
  }
  return mu_products_[size_t(t)];
}

AdamVariant::AdamVariant(std::vector<torch::optim::OptimizerParamGroup> groups,
                         const AdamVariantOptions& defaults)
    : torch::optim::Optimizer(std::move(groups), std::make_unique<AdamVariantOptions>(defaults)),
      kind_(defaults.kind()) {
  for (auto& g : param_groups_) {
    const auto* o = dynamic_cast<const AdamVariantOptions*>(&g.options());
    if (!o || o->kind() != kind_)
      fail("AdamVariant: every parameter group needs ", adamVariantName(kind_), " options");
  }
}

AdamVariantKind AdamVariant::kind() const {
  return kind_;
}

at::Tensor AdamVariant::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  const at::Tensor loss = evaluateLossClosure(closure);
  for (auto& group : param_groups_) {
    auto& o = static_cast<AdamVariantOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    const char* name = adamVariantName(kind_);
    for (auto& [t, b] : adamBatchesByStep<AdamVariantParamState>(group, state_, name)) {
      // L2 decay: the gradient gets weight_decay * p (a new tensor; the stored gradient is unchanged)
      if (o.weight_decay() != 0) b.grads = at::_foreach_add(b.grads, b.params, o.weight_decay());
      switch (kind_) {
        case AdamVariantKind::Adamax:
          adamaxUpdate(b, t, o.lr(), beta1, beta2, o.eps());
          break;
        case AdamVariantKind::NAdam:
          nadamUpdate(b, t, o.lr(), beta1, beta2, o.eps(), o.momentum_decay(),
                      nadamMuProduct(beta1, o.momentum_decay(), t));
          break;
        case AdamVariantKind::RAdam:
          radamUpdate(b, t, o.lr(), beta1, beta2, o.eps());
          break;
      }
    }
  }
  return loss;
}

}  // namespace ywb
