// Dynamic loss scaling for fp16 mixed precision (LibTorch C++ has no GradScaler), and the one owner of "is
// this optimizer step finite" for every precision. Scales the loss and notes on the device whether it is
// finite, unscales the gradients, and at the optimizer step reads once whether the gradients' total norm and
// every loss since the previous step were finite: if not, the optimizer does not step. With fp16 scaling a
// gradient overflow behind finite losses is the scale's fault (halved, as PyTorch's GradScaler does); a
// non-finite loss, or non-finite gradients without scaling, is a bad step the trainer counts and recovers
// from (train/nonfinite_guard.h). The scale doubles after `growth_interval` clean steps.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/ATen.h>
#include <torch/optim/optimizer.h>

#include <functional>

namespace ywb {

/// What GradScaler::step() did.
enum class StepOutcome {
  Stepped,   ///< gradients and losses finite: the optimizer stepped
  Overflow,  ///< fp16 scaling only: finite losses, non-finite scaled gradients; skipped, the scale backs off
  NonFinite  ///< a loss or the gradients were NaN/Inf (not a scale overflow): skipped
};

class GradScaler {
 public:
  explicit GradScaler(bool enabled, double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int64_t growth_interval = 2000);
  bool enabled() const { return enabled_; }
  /// loss * scale (the loss itself when disabled). Notes whether `loss` is finite (on the device, no sync).
  at::Tensor scale(const at::Tensor& loss);
  /// Divides every gradient in `opt` by the scale (nothing when disabled).
  void unscale(torch::optim::Optimizer& opt);
  /// Steps `opt` unless the gradients' total L2 norm `grad_norm` (after unscale; computed here when
  /// undefined) or a loss noted since the previous step is NaN/Inf: one host read. `agree` (distributed runs)
  /// turns this rank's "a loss was non-finite" into the job's answer, so that every rank decides alike.
  StepOutcome step(torch::optim::Optimizer& opt, const at::Tensor& grad_norm = {},
                   const std::function<bool(bool)>& agree = {});
  /// Adapts the scale after a step and forgets the noted losses.
  void update();
  double currentScale() const { return scale_; }
  double growthFactor() const { return growth_factor_; }
  double backoffFactor() const { return backoff_factor_; }
  int64_t growthInterval() const { return growth_interval_; }
  int64_t growthTracker() const { return growth_tracker_; }
  void restore(double scale, int64_t growth_tracker) {
    scale_ = scale;
    growth_tracker_ = growth_tracker;
    update_pending_ = false;
    loss_bad_ = at::Tensor();
  }
  /// Steps skipped because of an fp16 overflow (Overflow).
  int64_t skippedSteps() const { return skipped_; }
  /// Steps skipped because a loss or the gradients were NaN/Inf (NonFinite).
  int64_t nonFiniteSteps() const { return non_finite_; }

 private:
  bool enabled_;
  double scale_, growth_factor_, backoff_factor_;
  int64_t growth_interval_, growth_tracker_ = 0, skipped_ = 0, non_finite_ = 0;
  at::Tensor loss_bad_;  ///< 0-dim bool on the device: some loss since the last step was non-finite
  bool unscaled_ = false, update_pending_ = false, last_grads_bad_ = false;
};

}  // namespace ywb
