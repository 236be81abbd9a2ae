#include "train/model_ema.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <cmath>

#include "core/error.h"

namespace ywb {

std::vector<at::Tensor> ModelEma::floatState(torch::nn::Module& m) {
  std::vector<at::Tensor> out;
  for (auto& p : m.parameters()) out.push_back(p);
  for (auto& b : m.buffers()) {
    if (b.is_floating_point()) out.push_back(b);
  }
  return out;
}

ModelEma::ModelEma(std::shared_ptr<torch::nn::Module> ema, torch::nn::Module& model, double decay, double tau,
                   int64_t updates)
    : ema_(std::move(ema)), decay_(decay), tau_(tau), updates_(updates) {
  ema_->eval();
  for (auto& p : ema_->parameters()) p.set_requires_grad(false);
  ema_state_ = floatState(*ema_);
  const auto src = floatState(model);
  if (src.size() != ema_state_.size()) fail("EMA: model and EMA copy have different structures");
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < src.size(); ++i) ema_state_[i].copy_(src[i]);
  // Integer buffers (BatchNorm's num_batches_tracked) are copied as-is.
  auto eb = ema_->buffers();
  auto mb = model.buffers();
  for (size_t i = 0; i < eb.size() && i < mb.size(); ++i) {
    if (!eb[i].is_floating_point()) eb[i].copy_(mb[i]);
  }
}

double ModelEma::nextDecay() const {
  return decay_ * (1 - std::exp(-double(updates_ + 1) / tau_));
}

void ModelEma::update(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  const double d = nextDecay();
  ++updates_;
  std::vector<at::Tensor> src;
  src.reserve(ema_state_.size());
  for (auto& t : floatState(model)) src.push_back(t.detach());
  // v *= d; v += (1 - d) * w, rounded as Ultralytics' two statements are (an add with alpha may fuse the
  // multiply), as multi-tensor kernels instead of one launch pair per tensor.
  at::_foreach_mul_(ema_state_, d);
  at::_foreach_add_(ema_state_, at::_foreach_mul(src, 1.0 - d));
}

}  // namespace ywb
