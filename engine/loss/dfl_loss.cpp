#include "loss/dfl_loss.h"

namespace ywb::loss {

at::Tensor bbox2dist(const at::Tensor& anchor_points, const at::Tensor& bbox, double max_bin) {
  const auto xy = bbox.chunk(2, -1);
  return at::cat({anchor_points - xy[0], xy[1] - anchor_points}, -1).clamp(0, max_bin - 0.01);
}

at::Tensor dflLoss(const at::Tensor& pred_dist, const at::Tensor& target) {
  const at::Tensor tl = target.to(at::kLong);  // targets are >= 0, so truncation is floor
  const at::Tensor tr = tl + 1;
  const at::Tensor wl = tr.to(target.scalar_type()) - target;
  const at::Tensor wr = 1 - wl;
  const at::Tensor logp = at::log_softmax(pred_dist, -1);
  const at::Tensor ce_l = -logp.gather(1, tl.view({-1, 1})).view(tl.sizes());
  const at::Tensor ce_r = -logp.gather(1, tr.view({-1, 1})).view(tl.sizes());
  return (ce_l * wl + ce_r * wr).mean(-1, /*keepdim=*/true);
}

}  // namespace ywb::loss
