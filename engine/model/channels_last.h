// Channels-last (NHWC) memory format for a model's 4-D weights and gradients. LibTorch's C++ Module::to()
// has no memory_format argument, so the parameters are converted in place (their identity is kept:
// optimizers and EMA copies that hold them stay valid).
// Thread rules: call before training starts, on the thread that owns the model.
#pragma once
#include <torch/nn/module.h>

namespace ywb::model {

/// Converts every 4-D parameter (and buffer) of `m` to channels-last; returns how many were converted.
int toChannelsLast(torch::nn::Module& m);

}  // namespace ywb::model
