// Gradient clipping by total L2 norm without a host synchronisation: LibTorch's clip_grad_norm_ returns
// the norm as a double, which waits for the device on every optimizer step. Here the norm stays a device
// tensor (read it only when logging); per-tensor norms are one multi-tensor kernel.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/ATen.h>

#include <vector>

namespace ywb {

/// Scales the gradients of `params` so their total L2 norm is at most `max_norm` (coefficient
/// max_norm / (norm + 1e-6), clamped to 1, as PyTorch). Returns the total norm before clipping (0-dim,
/// on the gradients' device; undefined when no parameter has a gradient).
at::Tensor clipGradNorm(const std::vector<at::Tensor>& params, double max_norm);

}  // namespace ywb
