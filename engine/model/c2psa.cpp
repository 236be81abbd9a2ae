#include "model/c2psa.h"

#include <torch/nn/modules/container/sequential.h>

#include "core/error.h"
#include "model/layer_builder.h"

namespace ywb::model {

C2PSAImpl::C2PSAImpl(const C2PSAOptions& o) : options(o) {
  if (o.c1() != o.c2()) fail("C2PSA: input and output widths must be equal, got ", o.c1(), " and ", o.c2());
  c_ = static_cast<int64_t>(double(o.c1()) * o.e());
  if (c_ < 64) fail("C2PSA: ", c_, " hidden channels give no attention head (one head per 64 channels)");
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), 2 * c_, 1, 1)));
  cv2 = register_module("cv2", Conv(ConvOptions(2 * c_, o.c1(), 1)));
  torch::nn::Sequential m;
  for (int64_t i = 0; i < o.n(); ++i) {
    blocks.emplace_back(PSABlockOptions(c_).attn_ratio(0.5).num_heads(c_ / 64));
    m->push_back(blocks.back());
  }
  register_module("m", m);
}

at::Tensor C2PSAImpl::forward(const at::Tensor& x) {
  const auto ab = cv1->forward(x).split_with_sizes({c_, c_}, 1);
  at::Tensor b = ab[1];
  for (auto& blk : blocks) b = blk->forward(b);
  return cv2->forward(at::cat({ab[0], b}, 1));
}

void C2PSAImpl::fuse() {
  cv1->fuse();
  cv2->fuse();
  for (auto& b : blocks) b->fuse();
}

LayerFlops C2PSAImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f = cv1->flops(h, w, count_bn);
  for (const auto& b : blocks) f.flops += b->flops(f.out_h, f.out_w, count_bn).flops;
  const LayerFlops out = cv2->flops(f.out_h, f.out_w, count_bn);
  return {f.flops + out.flops, out.out_h, out.out_w};
}

// YAML: C2PSA [c2, e=0.5]; the repeats become its n.
BuiltLayer buildC2PSALayer(LayerContext& ctx) {
  ctx.requireOneInput();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0));
  const double e = ctx.real(1, 0.5);
  std::vector<std::string> shown{argText(c1), argText(c2), argText(ctx.n)};
  if (ctx.has(1)) shown.push_back(argText(e));
  return singleInputLayer(C2PSA(C2PSAOptions(c1, c2, ctx.n).e(e)), ctx, c2, std::move(shown));
}

}  // namespace ywb::model
