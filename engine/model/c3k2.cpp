#include "model/c3k2.h"

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>

#include <algorithm>

#include "model/layer_builder.h"

namespace ywb::model {

C3k2Impl::C3k2Impl(const C3k2Options& o) : options(o) {
  c_ = static_cast<int64_t>(double(o.c2()) * o.e());
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), 2 * c_, 1, 1)));
  cv2 = register_module("cv2", Conv(ConvOptions((2 + o.n()) * c_, o.c2(), 1, 1)));
  // The C2f blocks Ultralytics builds first and then replaces (same seed, same initial weights).
  drawReplacedBottlenecks(BottleneckOptions(c_, c_).shortcut(o.shortcut()).g(o.g()).e(1.0), o.n());
  torch::nn::ModuleList m;
  for (int64_t i = 0; i < o.n(); ++i) {
    if (o.attn()) {
      bottlenecks.emplace_back(BottleneckOptions(c_, c_).shortcut(o.shortcut()).g(o.g()));
      psa.emplace_back(PSABlockOptions(c_).attn_ratio(0.5).num_heads(std::max<int64_t>(c_ / 64, 1)));
      m->push_back(torch::nn::Sequential(bottlenecks.back(), psa.back()));
    } else if (o.c3k()) {
      c3ks.emplace_back(C3kOptions(c_, c_, 2).shortcut(o.shortcut()).g(o.g()));
      m->push_back(c3ks.back());
    } else {
      bottlenecks.emplace_back(BottleneckOptions(c_, c_).shortcut(o.shortcut()).g(o.g()));
      m->push_back(bottlenecks.back());
    }
  }
  register_module("m", m);
}

at::Tensor C3k2Impl::forward(const at::Tensor& x) {
  std::vector<at::Tensor> y = cv1->forward(x).chunk(2, 1);
  y.reserve(2 + size_t(options.n()));
  for (size_t i = 0; i < bottlenecks.size(); ++i) {
    at::Tensor t = bottlenecks[i]->forward(y.back());
    y.push_back(psa.empty() ? t : psa[i]->forward(t));
  }
  for (auto& b : c3ks) y.push_back(b->forward(y.back()));
  return cv2->forward(at::cat(y, 1));
}

void C3k2Impl::fuse() {
  cv1->fuse();
  cv2->fuse();
  for (auto& b : bottlenecks) b->fuse();
  for (auto& b : psa) b->fuse();
  for (auto& b : c3ks) b->fuse();
}

LayerFlops C3k2Impl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f = cv1->flops(h, w, count_bn);
  for (const auto& b : bottlenecks) f.flops += b->flops(f.out_h, f.out_w, count_bn).flops;
  for (const auto& b : psa) f.flops += b->flops(f.out_h, f.out_w, count_bn).flops;
  for (const auto& b : c3ks) f.flops += b->flops(f.out_h, f.out_w, count_bn).flops;
  const LayerFlops out = cv2->flops(f.out_h, f.out_w, count_bn);
  return {f.flops + out.flops, out.out_h, out.out_w};
}

// YAML: C3k2 [c2, c3k=False, e=0.5, attn=False, g=1, shortcut=True] (attn from Ultralytics 8.4, before g as
// in its signature; 8.3's YAMLs never gave g); the repeats become its n. Ultralytics' parse_model
// rules, applied here because they belong to this module: the m/l/x scales force c3k=True, and a model with
// a C3k2 row gets the depth-wise Detect class branch (legacy=False).
BuiltLayer buildC3k2Layer(LayerContext& ctx) {
  ctx.requireOneInput();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0));
  const bool forced = ctx.spec.scale == "m" || ctx.spec.scale == "l" || ctx.spec.scale == "x";
  ctx.requireArgsAtMost(6, "c2, c3k, e, attn, g, shortcut");
  const bool c3k = forced || ctx.boolean(1, false);
  const double e = ctx.real(2, 0.5);
  const bool attn = ctx.boolean(3, false);
  const int64_t g = ctx.integer(4, 1);
  const bool shortcut = ctx.boolean(5, true);
  ctx.state.legacy_head = false;
  std::vector<std::string> shown{argText(c1), argText(c2), argText(ctx.n)};
  if (ctx.has(1) || forced) shown.push_back(argText(c3k));
  if (ctx.has(2)) shown.push_back(argText(e));
  if (ctx.has(3)) shown.push_back(argText(attn));
  if (ctx.has(4)) shown.push_back(argText(g));
  if (ctx.has(5)) shown.push_back(argText(shortcut));
  const C3k2Options o = C3k2Options(c1, c2, ctx.n).c3k(c3k).e(e).attn(attn).g(g).shortcut(shortcut);
  return singleInputLayer(C3k2(o), ctx, c2, std::move(shown));
}

}  // namespace ywb::model
