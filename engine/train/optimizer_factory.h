// Builds the optimizer the way Ultralytics does: for SGD, AdamW, Adam, Adamax, NAdam, RAdam and RMSProp three
// parameter groups (0: biases, no decay; 1: conv/linear weights with decay; 2: BatchNorm weights, no decay);
// for MuSGD (8.4) eight: weight, bn, bias and muon (weights of 2+ dimensions, with decay), each split into
// the class branches (the Detect head's cv3 and one2one_cv3, at 3x the learning rate) and the rest; and the
// `auto` rule. The schedule reads each group's learning-rate scale and whether it is a bias group from here.
// Thread rules: call from the trainer thread.
#pragma once
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "train/optimizer_names.h"

namespace ywb {

struct ParamGroups {
  std::vector<at::Tensor> biases, weights, bn_weights;
  std::vector<std::string> bias_names, weight_names, bn_names;
};

/// Sorts the trainable parameters of `model` into the three groups (registration order kept).
ParamGroups splitParamGroups(torch::nn::Module& model);

struct OptimizerChoice {
  std::string name;  ///< one of optimizerNames() but "auto"
  double lr = 0.01;
  double momentum = 0.937;
  bool auto_chosen = false;  ///< true when `auto` picked it (then warmup_bias_lr becomes 0, as Ultralytics)
};

/// Resolves `optimizer=auto` as Ultralytics 8.4: MuSGD(lr 0.01, momentum 0.9) for more than 10,000
/// iterations, otherwise AdamW(lr = round(0.002 * 5 / (4 + nc), 6), momentum 0.9). Other names pass through
/// with lr0/momentum, matched without case (canonicalOptimizerName); an unknown name throws ywb::Error
/// listing optimizerNames().
OptimizerChoice chooseOptimizer(const std::string& name, double lr0, double momentum, int nc,
                                int64_t iterations);

/// Creates the optimizer with groups in Ultralytics' order: [biases, weights(decay), bn] for all but MuSGD;
/// [weight, bn, bias, muon] x [class branches, rest] for MuSGD. `decay` is already scaled by
/// batch * accumulate / nbs.
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const ParamGroups& groups,
                                                       const OptimizerChoice& choice, double decay);

/// Reads/writes the learning rate and momentum (SGD's or RMSprop's momentum, the Adam family's beta1) of
/// parameter group `i`.
double groupLr(torch::optim::Optimizer& opt, size_t i);
void setGroupLr(torch::optim::Optimizer& opt, size_t i, double lr);
void setGroupMomentum(torch::optim::Optimizer& opt, size_t i, double momentum);
/// Group `i`'s momentum: SGD's, MuSGD's and RMSprop's momentum, the Adam family's beta1 (fixed: warmup sets
/// only the momenta).
double groupMomentum(torch::optim::Optimizer& opt, size_t i);

/// Group `i`'s learning rate over the schedule's (3 for MuSGD's class branches, else 1).
double groupLrScale(torch::optim::Optimizer& opt, size_t i);
/// Whether group `i` holds biases (their learning rate warms up from warmup_bias_lr).
bool isBiasGroup(torch::optim::Optimizer& opt, size_t i);
/// Sets group `i` to the schedule's learning rate `lr` times the group's scale.
void setScheduledLr(torch::optim::Optimizer& opt, size_t i, double lr);
/// The groups whose rates results.csv reports as lr/pg0 (biases), lr/pg1 (decayed weights), lr/pg2 (BN
/// weights): {0, 1, 2}, for MuSGD the groups of the rest (not the class branches).
std::array<size_t, 3> reportedGroups(torch::optim::Optimizer& opt);
/// One line for the log: the optimizer's groups with their sizes, decay and learning-rate scale.
std::string describeGroups(torch::optim::Optimizer& opt);

}  // namespace ywb
