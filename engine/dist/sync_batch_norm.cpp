#include "dist/sync_batch_norm.h"

#include <torch/autograd.h>

#include <cstdint>

#include "core/error.h"
#include "dist/dist_context.h"
#include "model/conv.h"

namespace ywb {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

at::Tensor perChannel(const at::Tensor& v) {
  return v.view({1, -1, 1, 1});
}

// Inputs: x, weight, bias (with gradients); running stats, eps, momentum and the context (without).
struct SyncBatchNormFn : public torch::autograd::Function<SyncBatchNormFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& bias, at::Tensor running_mean, at::Tensor running_var,
                            double eps, double momentum, int64_t dist_ptr) {
    auto* dist = reinterpret_cast<DistContext*>(static_cast<intptr_t>(dist_ptr));
    const int64_t c = x.size(1);
    const at::Tensor xf = x.to(at::kFloat);
    const double n_local = double(x.numel() / c);
    // Per-rank mean and biased variance, combined as sums of x and x^2 in double precision.
    const auto [var_l, mean_l] = at::var_mean(xf, {0, 2, 3}, /*unbiased=*/false);
    at::Tensor stats = at::cat({mean_l.to(at::kDouble) * n_local,
                                (var_l.to(at::kDouble) + mean_l.to(at::kDouble).pow(2)) * n_local,
                                at::full({1}, n_local, mean_l.options().dtype(at::kDouble))});
    dist->allreduce(stats, false, "SyncBatchNorm statistics");
    const at::Tensor n = stats[2 * c];  // global element count per channel, stays on the device
    const at::Tensor mean_d = stats.slice(0, 0, c) / n;
    const at::Tensor var_d = (stats.slice(0, c, 2 * c) / n - mean_d.pow(2)).clamp_min(0);
    const at::Tensor mean = mean_d.to(at::kFloat), var = var_d.to(at::kFloat);
    const at::Tensor invstd = (var + eps).rsqrt();
    const at::Tensor xhat = (xf - perChannel(mean)) * perChannel(invstd);
    const at::Tensor y = xhat * perChannel(weight.to(at::kFloat)) + perChannel(bias.to(at::kFloat));
    {
      torch::NoGradGuard no_grad;
      running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype()), momentum);
      const at::Tensor unbias = (n / (n - 1).clamp_min(1)).to(at::kFloat);  // torch's unbiased running var
      running_var.mul_(1 - momentum).add_((var * unbias).to(running_var.dtype()), momentum);
    }
    ctx->save_for_backward({xhat, weight, invstd, n});
    ctx->saved_data["dist"] = dist_ptr;
    return y.to(x.scalar_type());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& xhat = saved[0];
    const at::Tensor& weight = saved[1];
    const at::Tensor& invstd = saved[2];
    const at::Tensor& n = saved[3];
    auto* dist = reinterpret_cast<DistContext*>(static_cast<intptr_t>(ctx->saved_data["dist"].toInt()));
    const int64_t c = xhat.size(1);
    const at::Tensor dy = grads[0].to(at::kFloat);
    const at::Tensor sum_dy = dy.sum({0, 2, 3});
    const at::Tensor sum_dy_xhat = (dy * xhat).sum({0, 2, 3});
    at::Tensor global = at::cat({sum_dy, sum_dy_xhat}).to(at::kDouble);
    dist->allreduce(global, false, "SyncBatchNorm gradients");
    const at::Tensor mean_dy = (global.slice(0, 0, c) / n).to(at::kFloat);
    const at::Tensor mean_dy_xhat = (global.slice(0, c, 2 * c) / n).to(at::kFloat);
    // d/dx of w * (x - mu) / sigma + b over the global batch.
    const at::Tensor dx = (dy - perChannel(mean_dy) - xhat * perChannel(mean_dy_xhat)) *
                          perChannel(weight.to(at::kFloat) * invstd);
    return {dx.to(grads[0].scalar_type()),
            sum_dy_xhat.to(weight.scalar_type()),
            sum_dy.to(weight.scalar_type()),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

at::Tensor syncBatchNorm(const at::Tensor& x, torch::nn::BatchNorm2dImpl& bn, DistContext& ctx) {
  if (x.dim() != 4) fail("SyncBatchNorm expects [N,C,H,W] input, got ", x.sizes());
  const auto& o = bn.options;
  if (!o.affine() || !o.track_running_stats() || !o.momentum())
    fail("SyncBatchNorm needs an affine BatchNorm with running statistics and a momentum");
  {
    torch::NoGradGuard no_grad;
    bn.num_batches_tracked.add_(1);
  }
  return SyncBatchNormFn::apply(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, o.eps(),
                                *o.momentum(), static_cast<int64_t>(reinterpret_cast<intptr_t>(&ctx)));
}

int enableSyncBatchNorm(torch::nn::Module& model, DistContext& ctx) {
  int n = 0;
  for (const auto& m : model.modules(/*include_self=*/true)) {
    auto conv = std::dynamic_pointer_cast<model::ConvImpl>(m);
    if (!conv || !conv->bn) continue;
    DistContext* d = &ctx;
    conv->bn_override = [d](torch::nn::BatchNorm2dImpl& bn, const at::Tensor& x) {
      return syncBatchNorm(x, bn, *d);
    };
    ++n;
  }
  return n;
}

}  // namespace ywb
