// YAML: nn.Upsample [None, scale_factor, 'nearest'] as LibTorch's Upsample (no module pair of our own:
// torch::nn::Upsample is the module, this file only builds it from a row).
#include <torch/nn/modules/upsampling.h>

#include "core/error.h"
#include "model/layer_builder.h"

namespace ywb::model {

BuiltLayer buildUpsampleLayer(LayerContext& ctx) {
  ctx.requireOneInput();
  ctx.requireNoRepeats();
  if (ctx.has(0)) fail(ctx.where(), ": only scale_factor upsampling (size None) is supported");
  const int64_t factor = ctx.integer(1, 2);
  const std::string mode = ctx.row.args.size() > 2 ? ctx.row.args[2] : "nearest";
  if (mode != "nearest") fail(ctx.where(), ": only 'nearest' upsampling is supported");
  if (factor < 1 || ctx.stride[0] % factor) fail(ctx.where(), ": upsampling below stride 1");
  torch::nn::Upsample m(torch::nn::UpsampleOptions()
                            .scale_factor(std::vector<double>{double(factor), double(factor)})
                            .mode(torch::kNearest));
  BuiltLayer b;
  b.module = m.ptr();
  b.run = [m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); };
  // Ultralytics' profiler (thop) counts one operation per output element of a nearest upsampling, doubled
  // like every count (yolo11x: 195.95 GFLOPs without it, 196.0 as Ultralytics prints with it).
  const int64_t c = ctx.ch[0];
  b.flops = [factor, c](int64_t h, int64_t w, bool) {
    return LayerFlops{2.0 * double(c * h * factor * w * factor), h * factor, w * factor};
  };
  b.fuse = [] {};
  b.channels = ctx.ch[0];
  b.stride = ctx.stride[0] / factor;
  b.args = {"None", argText(factor), "'nearest'"};
  return b;
}

}  // namespace ywb::model
