// The optimizer's state inside a checkpoint, as "optim.<group>.<index>.<field>" tensors: SGD's and MuSGD's
// momentum buffers (MuSGD's Muon buffer too), and for the Adam family and RMSprop their step count (a
// one-element int64 tensor) and moments. Restored with the layout of each parameter, so a resumed run stays
// bit-identical. Thread rules: the trainer thread (the optimizer's).
#pragma once
#include <torch/optim/optimizer.h>

#include "io/safetensors.h"

namespace ywb {

/// Appends the state of every parameter that has one.
void addOptimizerState(NamedTensors& out, torch::optim::Optimizer& opt);

/// Replaces the state of every parameter `file` holds state for; parameters without any keep none.
void restoreOptimizerState(const SafetensorsFile& file, torch::optim::Optimizer& opt);

/// A copy of `t` with the dtype, device and memory layout (e.g. channels-last) of parameter `p`: optimizer
/// state and gradients restored in the layout the uninterrupted run has, so reductions over them (the
/// gradient norm) sum in the same order and a resumed run stays bit-identical.
at::Tensor likeParam(const at::Tensor& t, const at::Tensor& p);

}  // namespace ywb
