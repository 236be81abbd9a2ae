// The optimizer half of a whole-step CUDA graph (issue 33): the trainer's optimizer step (loss scaling,
// unscale, clipping to norm 10, the finiteness check that skips a step, SGD, AdamW or MuSGD, the loss scale's
// back-off and growth, EMA) with everything that changes from step to step held in device tensors, so that
// one captured sequence of kernels serves every step. Eagerly (train_epoch.cpp's optimizerStep) the same work
// reads the finiteness flags on the host and passes the learning rate, momentum, EMA decay and loss scale as
// host numbers, which a graph would freeze at their captured values. Here:
// - prepare() (host, before each replay) copies every group's learning rate and momentum (Adam's beta1) into
//   a device tensor: warmup and the schedule keep setting them on the optimizer as in eager mode;
// - step() (the captured part) decides on the device whether the step is skipped and applies that by
//   arithmetic (a skipped step multiplies by 1 and adds 0), and keeps the loss scale, its growth count, the
//   EMA's update count, AdamW's step counts and the outcome counts on the device;
// - counts() reads the outcome counts when the host wants them (one read, e.g. when logging), and syncBack()
//   writes the device-held counters into the eager objects (before a checkpoint, at the end of an epoch).
// It works on any device: on the CPU it is the stand-in whose op sequence the tests check for capture
// (the same ops, shapes and scalar arguments every step; nothing that reads data back to the host). The
// results equal the eager step's within float rounding (the eager SGD and AdamW fuse a multiply into an add
// with a host scalar; a device scalar costs one more rounding); a skipped step leaves the parameters, the
// optimizer state and (for NaN/Inf) the EMA exactly as they were, as the eager step does. Not supported:
// distributed runs (the ranks' agreement on a skip is a host exchange), parameters that get no
// gradient. The trainer runs it eagerly when TrainHooks::graphReadyStep asks (the CPU stand-in,
// train_epoch.cpp); capturing the whole step needs a GPU. Thread rules: the trainer thread owns it, with the
// optimizer, model, EMA and scaler it was made from.
#pragma once
#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <vector>

#include "train/grad_scaler.h"
#include "train/model_ema.h"

namespace ywb {

/// Optimizer steps by outcome since the GraphReadyStep was made (see StepOutcome).
struct GraphStepCounts {
  int64_t stepped = 0, overflow = 0, nonfinite = 0;
};

/// Whether GraphReadyStep can hold `opt`'s update on the device: SGD, AdamW and MuSGD (the others step
/// eagerly; graph_step=true then says so in the log).
bool graphReadyStepSupports(torch::optim::Optimizer& opt);

class GraphReadyStep {
 public:
  /// Takes over the step of `opt` (ForeachSGD, ForeachAdamW or MuSGD, as makeOptimizer builds them; any
  /// other optimizer throws ywb::Error) for `model`, with `ema` and the loss scale and growth count of
  /// `scaler`. Every parameter of `opt` must already have a gradient and optimizer state: run one eager step
  /// first (a capture needs eager warm-up steps anyway); otherwise throws ywb::Error saying so. All of them
  /// must outlive this object.
  GraphReadyStep(torch::optim::Optimizer& opt, torch::nn::Module& model, ModelEma& ema,
                 const GradScaler& scaler, double max_norm = 10.0);

  /// Host part, before each step (replay): this step's learning rates and momenta from the optimizer's
  /// groups.
  void prepare();
  /// Device part: `loss` times the loss scale (the loss itself without scaling), noting on the device
  /// whether it is finite (as GradScaler::scale).
  at::Tensor scaleLoss(const at::Tensor& loss);
  /// Device part, after backward: unscale, clip, decide, update, zero the gradients. No host reads.
  void step();

  /// The outcome counts so far (one device-to-host read).
  GraphStepCounts counts() const;
  /// Writes the device-held state into the eager objects: the scaler's scale and growth count, the EMA's
  /// update count, AdamW's per-parameter step counts. One device-to-host read.
  void syncBack(torch::optim::Optimizer& opt, ModelEma& ema, GradScaler& scaler) const;

 private:
  struct Group {
    std::vector<at::Tensor> params, grads, bufs, exp_avg, exp_avg_sq, muon_bufs;
    double weight_decay = 0, dampening = 0, eps = 0, beta1 = 0, beta2 = 0;
    double muon = 0, sgd = 1;  ///< MuSGD's weights of the Muon and SGD updates (use_muon groups: muon > 0)
    bool nesterov = false;
    at::Tensor adam_step;  ///< fp64 0-dim: AdamW's step count after the last step
  };
  void sgdGroup(Group& g, size_t i, const at::Tensor& keep, const at::Tensor& found);
  void muonUpdates(const at::Tensor& keep, const at::Tensor& found);
  void adamwGroup(Group& g, size_t i, const at::Tensor& keep, const at::Tensor& found);
  void updateEma(const at::Tensor& nonfinite);

  torch::optim::Optimizer& opt_;
  torch::nn::Module& model_;
  bool adamw_ = false, musgd_ = false;
  std::vector<Group> groups_;
  std::vector<at::Tensor> all_params_, all_grads_, ema_state_, ema_src_;
  double max_norm_, ema_decay_, ema_tau_;
  bool scaling_;
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_;
  at::Tensor scalars_;  ///< fp64 [2 x groups] on the device: lr, then momentum (AdamW: beta1); read by step()
  at::Tensor scale_, growth_, ema_updates_;  ///< fp64 0-dim on the device
  at::Tensor loss_bad_;                      ///< bool 0-dim: a loss since the last step was NaN/Inf
  at::Tensor counts_;                        ///< int64 [3]: stepped, overflow, nonfinite
};

}  // namespace ywb
