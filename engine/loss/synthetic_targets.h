// Ground truth for steps measured without a dataset (`ywb bench model`, AutoBatch's trial step): random boxes
// that the loss assigns like real ones. Thread rules: a free function, reentrant.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>

namespace ywb::loss {

/// [M, 6] rows (image index, class, cx, cy, w, h; normalised) on the CPU: 1..6 boxes per image of `batch`,
/// sides 0.05..0.5, fully inside the image, classes 0..nc-1; the same rows for the same (batch, nc, seed).
at::Tensor syntheticTargets(int batch, int nc, uint64_t seed);

}  // namespace ywb::loss
