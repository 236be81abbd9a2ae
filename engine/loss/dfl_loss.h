// Distribution Focal Loss pieces: box sides as distances in bins, and the two-bin cross-entropy.
// Plain functions; thread-safe.
#pragma once
#include <ATen/ATen.h>

namespace ywb::loss {

/// Distances (left, top, right, bottom) from anchor points [A,2] to xyxy boxes [...,A,4], in the boxes'
/// units (negative where the point is outside the box).
at::Tensor ltrbDistances(const at::Tensor& anchor_points, const at::Tensor& bbox);

/// ltrbDistances clamped to [0, max_bin - 0.01] so the right neighbour bin (floor + 1) stays a valid bin.
at::Tensor bbox2dist(const at::Tensor& anchor_points, const at::Tensor& bbox, double max_bin);

/// DFL for logits [K*4, reg_max] and targets [K,4] in bins: for target t between bins l = floor(t) and l+1,
/// CE(logits, l) * (l + 1 - t) + CE(logits, l + 1) * (t - l), averaged over the 4 sides. Returns [K,1].
at::Tensor dflLoss(const at::Tensor& pred_dist, const at::Tensor& target);

}  // namespace ywb::loss
