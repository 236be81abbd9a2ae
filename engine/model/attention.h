// Multi-head self-attention over a feature map (Ultralytics' Attention, used by YOLO11's PSABlock): a 1x1
// Conv qkv (no activation) makes per head a query and key of key_dim = head_dim * attn_ratio channels and a
// value of head_dim channels; softmax(q^T k * key_dim^-0.5) weights the values over all H*W positions; a
// depth-wise 3x3 Conv of the values (pe, positional encoding) is added; a 1x1 Conv proj mixes the heads.
// Keys: qkv.*, proj.*, pe.*. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/conv.h"

namespace ywb::model {

struct AttentionOptions {
  explicit AttentionOptions(int64_t dim) : dim_(dim) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(int64_t, num_heads) = 8;
  TORCH_ARG(double, attn_ratio) = 0.5;
};

class AttentionImpl : public torch::nn::Module {
 public:
  explicit AttentionImpl(const AttentionOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  /// FLOPs of the convolutions (Ultralytics' profiler counts modules only, not the matrix products).
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  int64_t headDim() const { return head_dim_; }
  int64_t keyDim() const { return key_dim_; }
  double scale() const { return scale_; }

  AttentionOptions options;
  Conv qkv{nullptr}, proj{nullptr}, pe{nullptr};

 private:
  int64_t head_dim_ = 0, key_dim_ = 0;
  double scale_ = 1.0;
};
TORCH_MODULE(Attention);

}  // namespace ywb::model
