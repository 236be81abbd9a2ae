#include "loss/dfl_loss.h"

namespace ywb::loss {

at::Tensor ltrbDistances(const at::Tensor& anchor_points, const at::Tensor& bbox) {
  const auto xy = bbox.chunk(2, -1);
  return at::cat({anchor_points - xy[0], xy[1] - anchor_points}, -1);
}

at::Tensor bbox2dist(const at::Tensor& anchor_points, const at::Tensor& bbox, double max_bin) {
  return ltrbDistances(anchor_points, bbox).clamp(0, max_bin - 0.01);
}

at::Tensor dflLoss(const at::Tensor& pred_dist, const at::Tensor& target) {
  const at::Tensor tl = target.to(at::kLong);  // targets are >= 0, so truncation is floor
  const at::Tensor tr = tl + 1;
  const at::Tensor wl = tr.to(target.scalar_type()) - target;
  const at::Tensor wr = 1 - wl;
  // Two cross entropies, as Ultralytics' DFLoss: one log-softmax shared by both gives the same loss, but its
  // backward sums the two gradients before the softmax's backward and so rounds differently (docs/PARITY.md,
  // session 13).
  const auto none = at::Reduction::None;
  const at::Tensor ce_l = at::cross_entropy_loss(pred_dist, tl.view(-1), {}, none).view(tl.sizes());
  const at::Tensor ce_r = at::cross_entropy_loss(pred_dist, tr.view(-1), {}, none).view(tl.sizes());
  return (ce_l * wl + ce_r * wr).mean(-1, /*keepdim=*/true);
}

}  // namespace ywb::loss
