#include "model/dwconv.h"

#include <numeric>

#include "model/layer_builder.h"

namespace ywb::model {

DWConvImpl::DWConvImpl(const DWConvOptions& o)
    : ConvImpl(ConvOptions(o.c1(), o.c2(), o.k(), o.s()).g(std::gcd(o.c1(), o.c2())).act(o.act())) {}

// YAML: DWConv [c2, k=1, s=1].
BuiltLayer buildDWConvLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  ctx.requireNoRepeats();
  const int64_t c1 = ctx.ch[0], c2 = ctx.width(ctx.integer(0, 0)), k = ctx.integer(1, 1),
                s = ctx.integer(2, 1);
  BuiltLayer b = singleInputLayer(DWConv(DWConvOptions(c1, c2, k, s)), ctx, c2,
                                  {argText(c1), argText(c2), argText(k), argText(s)});
  b.stride = ctx.stride[0] * s;
  return b;
}

}  // namespace ywb::model
