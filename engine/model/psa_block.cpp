#include "model/psa_block.h"

#include <torch/nn/modules/container/sequential.h>

namespace ywb::model {

PSABlockImpl::PSABlockImpl(const PSABlockOptions& o) : options(o) {
  attn = register_module(
      "attn", Attention(AttentionOptions(o.c()).num_heads(o.num_heads()).attn_ratio(o.attn_ratio())));
  ffn1 = Conv(ConvOptions(o.c(), 2 * o.c(), 1));
  ffn2 = Conv(ConvOptions(2 * o.c(), o.c(), 1).act(false));
  register_module("ffn", torch::nn::Sequential(ffn1, ffn2));
}

at::Tensor PSABlockImpl::forward(const at::Tensor& x) {
  const at::Tensor a = options.shortcut() ? x + attn->forward(x) : attn->forward(x);
  const at::Tensor f = ffn2->forward(ffn1->forward(a));
  return options.shortcut() ? a + f : f;
}

void PSABlockImpl::fuse() {
  attn->fuse();
  ffn1->fuse();
  ffn2->fuse();
}

LayerFlops PSABlockImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f = attn->flops(h, w, count_bn);
  f.flops += ffn1->flops(h, w, count_bn).flops + ffn2->flops(h, w, count_bn).flops;
  return f;
}

}  // namespace ywb::model
