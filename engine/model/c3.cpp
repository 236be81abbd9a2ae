#include "model/c3.h"

#include <torch/nn/modules/container/sequential.h>

#include "model/layer_builder.h"

namespace ywb::model {

C3Impl::C3Impl(const C3Options& o, int64_t k1, int64_t k2) : options(o) {
  const auto c = static_cast<int64_t>(double(o.c2()) * o.e());
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), c, 1, 1)));
  cv2 = register_module("cv2", Conv(ConvOptions(o.c1(), c, 1, 1)));
  cv3 = register_module("cv3", Conv(ConvOptions(2 * c, o.c2(), 1, 1)));
  // C3k (other kernels) replaces the blocks C3 built: draw their weights first, as Ultralytics does.
  if (k1 != 1 || k2 != 3)
    drawReplacedBottlenecks(BottleneckOptions(c, c).shortcut(o.shortcut()).g(o.g()).k1(1).k2(3).e(1.0),
                            o.n());
  torch::nn::Sequential m;
  for (int64_t i = 0; i < o.n(); ++i) {
    blocks.emplace_back(BottleneckOptions(c, c).shortcut(o.shortcut()).g(o.g()).k1(k1).k2(k2).e(1.0));
    m->push_back(blocks.back());
  }
  register_module("m", m);
}

at::Tensor C3Impl::forward(const at::Tensor& x) {
  at::Tensor y = cv1->forward(x);
  for (auto& b : blocks) y = b->forward(y);
  return cv3->forward(at::cat({y, cv2->forward(x)}, 1));
}

void C3Impl::fuse() {
  cv1->fuse();
  cv2->fuse();
  cv3->fuse();
  for (auto& b : blocks) b->fuse();
}

LayerFlops C3Impl::flops(int64_t h, int64_t w, bool count_bn) const {
  const LayerFlops a = cv1->flops(h, w, count_bn);
  double total = a.flops + cv2->flops(h, w, count_bn).flops;
  for (const auto& b : blocks) total += b->flops(a.out_h, a.out_w, count_bn).flops;
  const LayerFlops out = cv3->flops(a.out_h, a.out_w, count_bn);
  return {total + out.flops, out.out_h, out.out_w};
}

// YAML: C3 [c2, shortcut=True]; the repeats become its n.
BuiltLayer buildC3Layer(LayerContext& ctx) {
  ctx.requireOneInput();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0));
  const bool shortcut = ctx.boolean(1, true);
  std::vector<std::string> shown{argText(c1), argText(c2), argText(ctx.n)};
  if (ctx.has(1)) shown.push_back(argText(shortcut));
  return singleInputLayer(C3(C3Options(c1, c2, ctx.n).shortcut(shortcut)), ctx, c2, std::move(shown));
}

}  // namespace ywb::model
