#include "model/c2f.h"

#include "model/layer_builder.h"

namespace ywb::model {

C2fImpl::C2fImpl(const C2fOptions& o) : options(o) {
  c_ = static_cast<int64_t>(double(o.c2()) * o.e());
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), 2 * c_, 1, 1)));
  cv2 = register_module("cv2", Conv(ConvOptions((2 + o.n()) * c_, o.c2(), 1, 1)));
  torch::nn::ModuleList m;
  for (int64_t i = 0; i < o.n(); ++i) {
    blocks.emplace_back(BottleneckOptions(c_, c_).shortcut(o.shortcut()).e(1.0));
    m->push_back(blocks.back());
  }
  register_module("m", m);
}

at::Tensor C2fImpl::forward(const at::Tensor& x) {
  std::vector<at::Tensor> y = cv1->forward(x).chunk(2, 1);
  y.reserve(2 + blocks.size());
  for (auto& b : blocks) y.push_back(b->forward(y.back()));
  return cv2->forward(at::cat(y, 1));
}

void C2fImpl::fuse() {
  cv1->fuse();
  cv2->fuse();
  for (auto& b : blocks) b->fuse();
}

LayerFlops C2fImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f = cv1->flops(h, w, count_bn);
  for (const auto& b : blocks) f.flops += b->flops(f.out_h, f.out_w, count_bn).flops;
  const LayerFlops out = cv2->flops(f.out_h, f.out_w, count_bn);
  return {f.flops + out.flops, out.out_h, out.out_w};
}

// YAML: C2f [c2, shortcut=False]; the repeats become its n.
BuiltLayer buildC2fLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0));
  const bool shortcut = ctx.boolean(1, false);
  std::vector<std::string> shown{argText(c1), argText(c2), argText(ctx.n)};
  if (ctx.has(1)) shown.push_back(argText(shortcut));
  return singleInputLayer(C2f(C2fOptions(c1, c2, ctx.n).shortcut(shortcut)), ctx, c2, std::move(shown));
}

}  // namespace ywb::model
