// SyncBatchNorm for distributed training (`sync_bn=true`): in training mode a BatchNorm2d normalises with
// the mean and variance of the GLOBAL batch (all ranks), and its backward pass uses the global sums of
// the output gradient, exactly as one process with the whole batch would. Two small all-reduces per layer
// and step (2C+1 values forward, 2C backward); the BatchNorm's parameters and running statistics are the
// module's own, so state dicts and checkpoints do not change. Weight and bias gradients stay local: the
// gradient reducer averages them like every other parameter.
// Thread rules: collectives from the trainer thread (forward) and autograd's thread (backward); every rank
// runs the same layers in the same order, so the collectives match up.
#pragma once
#include <ATen/ATen.h>
#include <torch/nn/modules/batchnorm.h>

namespace ywb {

class DistContext;

/// BatchNorm2d forward in training mode over the global batch; updates bn's running statistics (unbiased
/// variance, like torch) and num_batches_tracked.
at::Tensor syncBatchNorm(const at::Tensor& x, torch::nn::BatchNorm2dImpl& bn, DistContext& ctx);

/// Routes every YOLO Conv block's BatchNorm of `model` through syncBatchNorm while it trains; returns
/// how many layers were switched.
int enableSyncBatchNorm(torch::nn::Module& model, DistContext& ctx);

}  // namespace ywb
