// Position-sensitive attention block (Ultralytics' PSABlock): x + Attention(x), then x + ffn(x) (both
// residuals only with shortcut) with
// ffn = Conv 1x1 (c -> 2c, SiLU), Conv 1x1 (2c -> c, no activation). Keys: attn.*, ffn.0.*, ffn.1.*.
// Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/attention.h"

namespace ywb::model {

struct PSABlockOptions {
  explicit PSABlockOptions(int64_t c) : c_(c) {}
  TORCH_ARG(int64_t, c);
  TORCH_ARG(double, attn_ratio) = 0.5;
  TORCH_ARG(int64_t, num_heads) = 4;
  TORCH_ARG(bool, shortcut) = true;  ///< residuals around the attention and the ffn
};

class PSABlockImpl : public torch::nn::Module {
 public:
  explicit PSABlockImpl(const PSABlockOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  PSABlockOptions options;
  Attention attn{nullptr};
  Conv ffn1{nullptr}, ffn2{nullptr};  ///< registered as the Sequential "ffn" (ffn.0, ffn.1)
};
TORCH_MODULE(PSABlock);

}  // namespace ywb::model
