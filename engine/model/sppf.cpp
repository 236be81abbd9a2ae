#include "model/sppf.h"

#include "model/layer_builder.h"

namespace ywb::model {

SPPFImpl::SPPFImpl(const SPPFOptions& o) : options(o) {
  const int64_t hidden = o.c1() / 2;
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), hidden, 1, 1)));
  cv2 = register_module("cv2", Conv(ConvOptions(hidden * 4, o.c2(), 1, 1)));
}

at::Tensor SPPFImpl::forward(const at::Tensor& x) {
  const int64_t k = options.k();
  std::vector<at::Tensor> y{cv1->forward(x)};
  for (int i = 0; i < 3; ++i) y.push_back(at::max_pool2d(y.back(), {k, k}, {1, 1}, {k / 2, k / 2}));
  return cv2->forward(at::cat(y, 1));
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

// YAML: SPPF [c2, k=5].
BuiltLayer buildSPPFLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  ctx.requireNoRepeats();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0)), k = ctx.integer(1, 5);
  return singleInputLayer(SPPF(SPPFOptions(c1, c2, k)), ctx, c2, {argText(c1), argText(c2), argText(k)});
}

}  // namespace ywb::model
