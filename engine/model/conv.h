// YOLO's basic block: Conv2d (no bias) + BatchNorm2d (eps 1e-3, momentum 0.03) + SiLU.
// State-dict keys: conv.weight, bn.weight, bn.bias, bn.running_mean, bn.running_var, bn.num_batches_tracked;
// after fuse(): conv.weight, conv.bias. Thread rules: a module is used by one thread at a time.
#pragma once
#include <functional>

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

namespace ywb::model {

struct ConvOptions {
  ConvOptions(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1) : c1_(c1), c2_(c2), k_(k), s_(s) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, k);
  TORCH_ARG(int64_t, s);
  TORCH_ARG(int64_t, g) = 1;
  TORCH_ARG(bool, act) = true;  ///< SiLU after the normalisation
};

/// FLOP count of one layer for an input of h x w, and the output size it produces.
struct LayerFlops {
  double flops = 0;  ///< multiply-add = 2 FLOPs, as Ultralytics reports GFLOPs
  int64_t out_h = 0, out_w = 0;
};

/// Output side of a convolution with "same" padding k/2.
inline int64_t convOutSize(int64_t in, int64_t k, int64_t s) {
  return (in + 2 * (k / 2) - k) / s + 1;
}

class ConvImpl : public torch::nn::Module {
 public:
  explicit ConvImpl(const ConvOptions& options);
  at::Tensor forward(const at::Tensor& x);
  /// Folds the BatchNorm into the convolution (conv gains a bias, bn is unregistered). Idempotent.
  void fuse();
  bool fused() const { return fused_; }
  /// FLOPs for an h x w input; `fused` false also counts the BatchNorm like Ultralytics' profiler.
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  ConvOptions options;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  /// When set, replaces bn's forward while training (SyncBatchNorm in distributed runs); state is bn's.
  std::function<at::Tensor(torch::nn::BatchNorm2dImpl&, const at::Tensor&)> bn_override;

 private:
  bool fused_ = false;
};
TORCH_MODULE(Conv);

/// Folds `bn` into a copy of `conv`'s weight; returns {weight, bias} (both detached).
std::pair<at::Tensor, at::Tensor> foldBatchNorm(const at::Tensor& conv_weight, const at::Tensor& conv_bias,
                                                const torch::nn::BatchNorm2d& bn);

}  // namespace ywb::model
