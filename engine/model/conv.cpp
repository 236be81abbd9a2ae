#include "model/conv.h"

#include "core/error.h"
#include "model/layer_builder.h"

namespace ywb::model {

ConvImpl::ConvImpl(const ConvOptions& o) : options(o) {
  conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(o.c1(), o.c2(), o.k())
                                                       .stride(o.s())
                                                       .padding(o.k() / 2)
                                                       .groups(o.g())
                                                       .bias(false)));
  bn = register_module(
      "bn", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(o.c2()).eps(1e-3).momentum(0.03)));
}

at::Tensor ConvImpl::forward(const at::Tensor& x) {
  at::Tensor y = conv->forward(x);
  // The BatchNorm's own mode: a frozen layer's BatchNorm stays in eval mode while the model trains.
  if (!fused_) y = bn_override && bn->is_training() ? bn_override(*bn, y) : bn->forward(y);
  return options.act() ? at::silu(y) : y;
}

std::pair<at::Tensor, at::Tensor> foldBatchNorm(const at::Tensor& conv_weight, const at::Tensor& conv_bias,
                                                const torch::nn::BatchNorm2d& bn) {
  torch::NoGradGuard no_grad;
  const at::Tensor scale = bn->weight / at::sqrt(bn->running_var + bn->options.eps());
  const at::Tensor w = conv_weight * scale.view({-1, 1, 1, 1});
  const at::Tensor b0 = conv_bias.defined() ? conv_bias : at::zeros_like(bn->running_mean);
  const at::Tensor b = bn->bias + (b0 - bn->running_mean) * scale;
  return {w.detach().clone(), b.detach().clone()};
}

void ConvImpl::fuse() {
  if (fused_) return;
  auto [w, b] = foldBatchNorm(conv->weight, conv->bias, bn);
  auto fused = torch::nn::Conv2d(torch::nn::Conv2dOptions(options.c1(), options.c2(), options.k())
                                     .stride(options.s())
                                     .padding(options.k() / 2)
                                     .groups(options.g())
                                     .bias(true));
  fused->to(w.device(), w.scalar_type());
  {
    torch::NoGradGuard no_grad;
    fused->weight.copy_(w);
    fused->bias.copy_(b);
  }
  fused->weight.set_requires_grad(false);
  fused->bias.set_requires_grad(false);
  conv = replace_module("conv", fused);
  unregister_module("bn");
  bn = nullptr;
  fused_ = true;
}

LayerFlops ConvImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f;
  f.out_h = convOutSize(h, options.k(), options.s());
  f.out_w = convOutSize(w, options.k(), options.s());
  const double out = double(options.c2()) * double(f.out_h) * double(f.out_w);
  f.flops = 2.0 * out * double(options.c1() / options.g()) * double(options.k() * options.k());
  // Ultralytics' profiler (thop) counts an affine BatchNorm as 4 operations per element, then doubles all
  // counts.
  if (count_bn && !fused_) f.flops += 8.0 * out;
  return f;
}

// YAML: Conv [c2, k=1, s=1, p=None, g=1]. Only "same" padding (k/2) exists here.
BuiltLayer buildConvLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  ctx.requireNoRepeats();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0)), k = ctx.integer(1, 1),
                s = ctx.integer(2, 1);
  if (ctx.has(3) && ctx.integer(3, 0) != k / 2)
    fail(ctx.where(), ": only 'same' padding (None) is supported");
  const int64_t g = ctx.integer(4, 1);
  std::vector<std::string> shown{argText(c1), argText(c2), argText(k), argText(s)};
  if (g != 1) shown.insert(shown.end(), {"None", argText(g)});
  BuiltLayer b = singleInputLayer(Conv(ConvOptions(c1, c2, k, s).g(g)), ctx, c2, std::move(shown));
  b.stride = ctx.stride[0] * s;
  return b;
}

}  // namespace ywb::model
