// MuSGD, Ultralytics 8.4's optimizer (its default above 10,000 iterations and YOLO26's recipe): in groups
// with use_muon (parameters of 2 or more dimensions) each step first applies lr * muon (0.2) x the
// Newton–Schulz- orthogonalised Nesterov momentum of the gradient (Muon; train/newton_schulz.h), then, from
// the parameter so updated, lr * sgd (1.0) x a Nesterov SGD step with its own momentum buffer and the weight
// decay; the other groups take the SGD step alone. Muon's momentum is an exponential average, buf <- buf + (1
// - m)(g - buf) from zero, its Nesterov update g + m (buf - g); a parameter's matrix is its first dimension
// by the rest. Same-shaped matrices are orthogonalised together, as one batch. Every detail is pinned by
// Ultralytics' own two steps in ../shared/fixtures/ultralytics84/musgd-*.safetensors
// (tests/engine/test_musgd.cpp): on the CPU the result is bit-identical. Thread rules: like any torch
// optimizer, one thread at a time.
#pragma once
#include <torch/optim/sgd.h>

#include <memory>
#include <string>
#include <vector>

namespace ywb {

/// A MuSGD parameter group: SGD's settings (lr, momentum, weight_decay, nesterov; dampening must stay 0) plus
/// Muon's. Derived from SGDOptions so code that reads or sets SGD's lr and momentum serves MuSGD as well.
struct MuSGDOptions : public torch::optim::SGDOptions {
  explicit MuSGDOptions(double lr) : torch::optim::SGDOptions(lr) {}
  TORCH_ARG(bool, use_muon) = false;  ///< Muon plus SGD (parameters of 2+ dimensions) instead of SGD alone
  TORCH_ARG(double, muon) = 0.2;      ///< weight of the orthogonalised update in use_muon groups
  TORCH_ARG(double, sgd) = 1.0;       ///< weight of the SGD update in use_muon groups
  /// Ultralytics' name of the group: "weight", "bn", "bias" or "muon" (the bias groups warm up from
  /// warmup_bias_lr).
  TORCH_ARG(std::string, role) = "weight";
  /// The group's learning rate over the schedule's (3 for the class branches).
  TORCH_ARG(double, lr_scale) = 1.0;

 public:
  std::unique_ptr<torch::optim::OptimizerOptions> clone() const override {
    return std::make_unique<MuSGDOptions>(*this);
  }
};

/// A parameter's state: SGD's momentum buffer (every parameter) and Muon's (use_muon groups).
struct MuSGDParamState : public torch::optim::OptimizerCloneableParamState<MuSGDParamState> {
  TORCH_ARG(at::Tensor, momentum_buffer);
  TORCH_ARG(at::Tensor, muon_buffer);
};

class MuSGD : public torch::optim::Optimizer {
 public:
  /// Every group needs MuSGDOptions (a group without options takes `defaults`).
  MuSGD(std::vector<torch::optim::OptimizerParamGroup> groups, const MuSGDOptions& defaults);
  at::Tensor step(LossClosure closure = nullptr) override;

 private:
  struct GroupWork {  // a group's parameters that have gradients, with their state
    const MuSGDOptions* options;
    std::vector<at::Tensor> params, grads;
    std::vector<MuSGDParamState*> states;
  };
  MuSGDParamState& stateOf(const at::Tensor& p);
  void muonUpdate(const std::vector<GroupWork>& work);
  void sgdUpdate(const MuSGDOptions& o, const std::vector<at::Tensor>& params,
                 const std::vector<at::Tensor>& grads, const std::vector<MuSGDParamState*>& states,
                 double weight);
};

}  // namespace ywb
