#include "model/attention.h"

#include <cmath>

#include "core/error.h"

namespace ywb::model {

AttentionImpl::AttentionImpl(const AttentionOptions& o) : options(o) {
  if (o.num_heads() < 1 || o.dim() % o.num_heads())
    fail("Attention: ", o.dim(), " channels do not split into ", o.num_heads(), " heads");
  head_dim_ = o.dim() / o.num_heads();
  key_dim_ = static_cast<int64_t>(double(head_dim_) * o.attn_ratio());
  if (key_dim_ < 1) fail("Attention: key dimension ", key_dim_, " (head_dim * attn_ratio) must be >= 1");
  scale_ = std::pow(double(key_dim_), -0.5);
  const int64_t h = o.dim() + 2 * key_dim_ * o.num_heads();
  qkv = register_module("qkv", Conv(ConvOptions(o.dim(), h, 1).act(false)));
  proj = register_module("proj", Conv(ConvOptions(o.dim(), o.dim(), 1).act(false)));
  pe = register_module("pe", Conv(ConvOptions(o.dim(), o.dim(), 3).g(o.dim()).act(false)));
}

at::Tensor AttentionImpl::forward(const at::Tensor& x) {
  const int64_t b = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3), n = h * w;
  const auto parts = qkv->forward(x)
                         .view({b, options.num_heads(), 2 * key_dim_ + head_dim_, n})
                         .split_with_sizes({key_dim_, key_dim_, head_dim_}, 2);
  const at::Tensor& q = parts[0];
  const at::Tensor& k = parts[1];
  const at::Tensor& v = parts[2];
  const at::Tensor attn = (at::matmul(q.transpose(-2, -1), k) * scale_).softmax(-1);
  const at::Tensor y =
      at::matmul(v, attn.transpose(-2, -1)).view({b, c, h, w}) + pe->forward(v.reshape({b, c, h, w}));
  return proj->forward(y);
}

void AttentionImpl::fuse() {
  qkv->fuse();
  proj->fuse();
  pe->fuse();
}

LayerFlops AttentionImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  LayerFlops f = qkv->flops(h, w, count_bn);
  f.flops += pe->flops(h, w, count_bn).flops + proj->flops(h, w, count_bn).flops;
  return f;
}

}  // namespace ywb::model
