// Dynamic loss scaling for fp16 mixed precision (LibTorch C++ has no GradScaler). Scales the loss, unscales
// gradients while checking them for inf/NaN on the device, skips the optimizer step when any is non-finite,
// halves the scale on overflow and doubles it after `growth_interval` clean steps.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/ATen.h>
#include <torch/optim/optimizer.h>

namespace ywb {

class GradScaler {
 public:
  explicit GradScaler(bool enabled, double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int64_t growth_interval = 2000);
  bool enabled() const { return enabled_; }
  /// loss * scale (the loss itself when disabled).
  at::Tensor scale(const at::Tensor& loss);
  /// Divides every gradient in `opt` by the scale and records whether any is non-finite (stays on device).
  void unscale(torch::optim::Optimizer& opt);
  /// Steps `opt` unless the unscaled gradients held inf/NaN. Returns whether it stepped (one host read).
  bool step(torch::optim::Optimizer& opt);
  /// Adapts the scale after a step.
  void update();
  double currentScale() const { return scale_; }
  int64_t growthTracker() const { return growth_tracker_; }
  void restore(double scale, int64_t growth_tracker) {
    scale_ = scale;
    growth_tracker_ = growth_tracker;
  }
  /// Number of steps skipped because of non-finite gradients.
  int64_t skippedSteps() const { return skipped_; }

 private:
  bool enabled_;
  double scale_, growth_factor_, backoff_factor_;
  int64_t growth_interval_, growth_tracker_ = 0, skipped_ = 0;
  at::Tensor found_inf_;
  bool unscaled_ = false, last_found_inf_ = false;
};

}  // namespace ywb
