#include "model/sppf.h"

#include "core/error.h"
#include "model/layer_builder.h"

namespace ywb::model {

SPPFImpl::SPPFImpl(const SPPFOptions& o) : options(o) {
  const int64_t hidden = o.c1() / 2;
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), hidden, 1, 1).act(o.cv1_act())));
  cv2 = register_module("cv2", Conv(ConvOptions(hidden * (o.n() + 1), o.c2(), 1, 1)));
}

at::Tensor SPPFImpl::forward(const at::Tensor& x) {
  const int64_t k = options.k();
  std::vector<at::Tensor> y{cv1->forward(x)};
  for (int64_t i = 0; i < options.n(); ++i)
    y.push_back(at::max_pool2d(y.back(), {k, k}, {1, 1}, {k / 2, k / 2}));
  const at::Tensor out = cv2->forward(at::cat(y, 1));
  return residual() ? x + out : out;
}

void SPPFImpl::fuse() {
  cv1->fuse();
  cv2->fuse();
}

LayerFlops SPPFImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  // Max-pooling counts as zero operations in Ultralytics' profiler.
  const LayerFlops a = cv1->flops(h, w, count_bn);
  LayerFlops b = cv2->flops(a.out_h, a.out_w, count_bn);
  b.flops += a.flops;
  return b;
}

// YAML: SPPF [c2, k=5, n=3, shortcut=False] (n and shortcut from Ultralytics 8.4). cv1's activation follows
// the model's module form, not the row.
BuiltLayer buildSPPFLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  ctx.requireNoRepeats();
  ctx.requireArgsAtMost(4, "c2, k, n, shortcut");
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0)), k = ctx.integer(1, 5),
                n = ctx.integer(2, 3);
  const bool shortcut = ctx.boolean(3, false);
  if (n < 1) fail(ctx.where(), ": argument 2 (n, max-pools) must be >= 1, got ", n);
  std::vector<std::string> shown{argText(c1), argText(c2), argText(k)};
  if (ctx.has(2)) shown.push_back(argText(n));
  if (ctx.has(3)) shown.push_back(argText(shortcut));
  const SPPFOptions o = SPPFOptions(c1, c2, k).n(n).shortcut(shortcut).cv1_act(ctx.spec.sppfActivation());
  return singleInputLayer(SPPF(o), ctx, c2, std::move(shown));
}

}  // namespace ywb::model
