#include "model/concat.h"

#include "core/error.h"
#include "model/layer_builder.h"

namespace ywb::model {

// YAML: Concat [dimension]; only channel concatenation of maps at one stride.
BuiltLayer buildConcatLayer(LayerContext& ctx) {
  ctx.requireNoRepeats();
  const int64_t dim = ctx.integer(0, 1);
  if (dim != 1) fail(ctx.where(), ": only channel concatenation (dimension 1) is supported");
  Concat m(dim);
  BuiltLayer b;
  b.module = m.ptr();
  b.run = [m](const std::vector<at::Tensor>& x) mutable { return m->forward(x); };
  b.flops = [](int64_t h, int64_t w, bool) { return LayerFlops{0, h, w}; };
  b.fuse = [] {};
  for (size_t i = 0; i < ctx.ch.size(); ++i) {
    b.channels += ctx.ch[i];
    if (ctx.stride[i] != ctx.stride[0]) fail(ctx.where(), ": concatenated inputs have different strides");
  }
  b.stride = ctx.stride[0];
  b.args = {argText(dim)};
  return b;
}

}  // namespace ywb::model
