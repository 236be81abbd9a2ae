#include "train/optimizer_factory.h"

#include "train/foreach_adamw.h"
#include "train/foreach_sgd.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <cmath>

#include "core/error.h"

namespace ywb {

ParamGroups splitParamGroups(torch::nn::Module& model) {
  ParamGroups g;
  for (const auto& item : model.named_modules()) {
    const bool is_bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(item.value().get()) != nullptr ||
                       dynamic_cast<torch::nn::BatchNorm1dImpl*>(item.value().get()) != nullptr;
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      if (!p.value().requires_grad()) continue;
      const std::string full = item.key().empty() ? p.key() : item.key() + "." + p.key();
      if (p.key().find("bias") != std::string::npos) {
        g.biases.push_back(p.value());
        g.bias_names.push_back(full);
      } else if (is_bn) {
        g.bn_weights.push_back(p.value());
        g.bn_names.push_back(full);
      } else {
        g.weights.push_back(p.value());
        g.weight_names.push_back(full);
      }
    }
  }
  return g;
}

OptimizerChoice chooseOptimizer(const std::string& name, double lr0, double momentum, int nc,
                                int64_t iterations) {
  OptimizerChoice c;
  if (name == "auto") {
    c.auto_chosen = true;
    if (iterations > 10000) {
      c.name = "SGD";
      c.lr = 0.01;
      c.momentum = 0.9;
    } else {
      c.name = "AdamW";
      c.lr = std::round(0.002 * 5 / (4 + nc) * 1e6) / 1e6;
      c.momentum = 0.9;
    }
    return c;
  }
  if (name != "SGD" && name != "AdamW") fail("optimizer=", name, ": expected SGD, AdamW or auto");
  c.name = name;
  c.lr = lr0;
  c.momentum = momentum;
  return c;
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const ParamGroups& g, const OptimizerChoice& c,
                                                       double decay) {
  if (c.name == "SGD") {
    auto make = [&](double wd) {
      return std::make_unique<torch::optim::SGDOptions>(
          torch::optim::SGDOptions(c.lr).momentum(c.momentum).nesterov(true).weight_decay(wd));
    };
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(g.biases, make(0.0));
    groups.emplace_back(g.weights, make(decay));
    groups.emplace_back(g.bn_weights, make(0.0));
    return std::make_unique<ForeachSGD>(groups, torch::optim::SGDOptions(c.lr));
  }
  auto make = [&](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(c.lr).betas({c.momentum, 0.999}).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(g.biases, make(0.0));
  groups.emplace_back(g.weights, make(decay));
  groups.emplace_back(g.bn_weights, make(0.0));
  return std::make_unique<ForeachAdamW>(groups, torch::optim::AdamWOptions(c.lr));
}

double groupLr(torch::optim::Optimizer& opt, size_t i) {
  auto& o = opt.param_groups().at(i).options();
  if (auto* s = dynamic_cast<torch::optim::SGDOptions*>(&o)) return s->lr();
  if (auto* a = dynamic_cast<torch::optim::AdamWOptions*>(&o)) return a->lr();
  fail("unsupported optimizer options");
}

void setGroupLr(torch::optim::Optimizer& opt, size_t i, double lr) {
  auto& o = opt.param_groups().at(i).options();
  if (auto* s = dynamic_cast<torch::optim::SGDOptions*>(&o))
    s->lr(lr);
  else if (auto* a = dynamic_cast<torch::optim::AdamWOptions*>(&o))
    a->lr(lr);
}

void setGroupMomentum(torch::optim::Optimizer& opt, size_t i, double momentum) {
  auto& o = opt.param_groups().at(i).options();
  if (auto* s = dynamic_cast<torch::optim::SGDOptions*>(&o)) s->momentum(momentum);
  // Ultralytics warms up only SGD's momentum (Adam groups have betas, not momentum).
}

}  // namespace ywb
