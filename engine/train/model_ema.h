// Exponential moving average of model weights (Ultralytics' ModelEMA): decay ramps as
// d = decay * (1 - exp(-updates / tau)), applied to every floating-point parameter and buffer.
// Thread rules: trainer thread only; readers (feature maps, GUI) get copies through the trainer.
#pragma once
#include <torch/nn/module.h>

#include <cstdint>
#include <vector>

namespace ywb {

class ModelEma {
 public:
  /// `ema` is a separately built model of the same architecture; it starts as a copy of `model`.
  ModelEma(std::shared_ptr<torch::nn::Module> ema, torch::nn::Module& model, double decay = 0.9999,
           double tau = 2000, int64_t updates = 0);
  /// One EMA step from the training model's current weights (multi-tensor, no host sync).
  void update(torch::nn::Module& model);
  /// The decay that the next update will use.
  double nextDecay() const;
  int64_t updates() const { return updates_; }
  void setUpdates(int64_t u) { updates_ = u; }
  double decay() const { return decay_; }
  double tau() const { return tau_; }
  /// The averaged tensors (the EMA copy's parameters and floating-point buffers), in floatState's order.
  const std::vector<at::Tensor>& averaged() const { return ema_state_; }
  /// A model's parameters and floating-point buffers: what the EMA averages, in its order.
  static std::vector<at::Tensor> floatState(torch::nn::Module& m);
  torch::nn::Module& module() { return *ema_; }
  std::shared_ptr<torch::nn::Module> modulePtr() { return ema_; }

 private:
  std::shared_ptr<torch::nn::Module> ema_;
  std::vector<at::Tensor> ema_state_;
  double decay_, tau_;
  int64_t updates_;
};

}  // namespace ywb
