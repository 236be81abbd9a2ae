// A batch's boxes grouped per image and padded to the largest count, built on the host where the loader
// holds the rows, so the loss never reads targets back from the device to learn the padded size.
// Thread rules: free functions on values.
#pragma once
#include <ATen/ATen.h>

namespace ywb {

struct GroupedTargets {
  at::Tensor labels;  ///< float [B, Mmax, 1]: class index (0 in padding)
  at::Tensor xywh;    ///< float [B, Mmax, 4]: centre and size normalised to the input image (0 in padding)
  at::Tensor mask;    ///< float [B, Mmax, 1]: 1 for a box, 0 for padding
  /// The three tensors on `device`.
  GroupedTargets to(at::Device device, bool non_blocking) const;
};

/// Groups CPU rows [M, 6] (image index, class, cx, cy, w, h) by image, keeping their order within an image.
/// Throws ywb::Error for an image index outside [0, batch), or a class outside [0, nc) when nc > 0.
GroupedTargets groupTargets(const at::Tensor& targets, int64_t batch, int64_t nc);

/// `g` with empty rows (mask 0, label 0, box 0) appended up to `capacity` boxes per image, on g's device, so
/// that every batch of a run has the shapes [B, capacity, ...] (the graph-ready loss,
/// loss::DetectionLossOptions::fixed_shapes; a run's capacity: targetCapacity, data/target_capacity.h). The
/// loss ignores such rows, as it ignores groupTargets' padding. Throws ywb::Error when g is padded to more
/// than `capacity` (groupTargets pads to the largest image's box count): a box is never dropped.
GroupedTargets padGroupedTargets(const GroupedTargets& g, int64_t capacity);

}  // namespace ywb
