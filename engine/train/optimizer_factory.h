// Builds the optimizer the way Ultralytics does: three parameter groups (0: biases, no decay;
// 1: conv/linear weights with decay; 2: BatchNorm weights, no decay), SGD with Nesterov momentum or AdamW,
// and the `auto` rule. Thread rules: call from the trainer thread.
#pragma once
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <string>
#include <vector>

namespace ywb {

struct ParamGroups {
  std::vector<at::Tensor> biases, weights, bn_weights;
  std::vector<std::string> bias_names, weight_names, bn_names;
};

/// Sorts the trainable parameters of `model` into the three groups (registration order kept).
ParamGroups splitParamGroups(torch::nn::Module& model);

struct OptimizerChoice {
  std::string name;  ///< "SGD" or "AdamW"
  double lr = 0.01;
  double momentum = 0.937;
  bool auto_chosen = false;  ///< true when `auto` picked it (then warmup_bias_lr becomes 0, as Ultralytics)
};

/// Resolves `optimizer=auto`: SGD(lr 0.01, momentum 0.9) for more than 10,000 iterations, otherwise
/// AdamW(lr = round(0.002 * 5 / (4 + nc), 6), momentum 0.9). Other names pass through with lr0/momentum.
OptimizerChoice chooseOptimizer(const std::string& name, double lr0, double momentum, int nc,
                                int64_t iterations);

/// Creates the optimizer with groups in Ultralytics' order [biases, weights(decay), bn]. `decay` is already
/// scaled by batch * accumulate / nbs.
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const ParamGroups& groups,
                                                       const OptimizerChoice& choice, double decay);

/// Reads/writes the learning rate and momentum (SGD momentum or Adam beta1) of parameter group `i`.
double groupLr(torch::optim::Optimizer& opt, size_t i);
void setGroupLr(torch::optim::Optimizer& opt, size_t i, double lr);
void setGroupMomentum(torch::optim::Optimizer& opt, size_t i, double momentum);

}  // namespace ywb
