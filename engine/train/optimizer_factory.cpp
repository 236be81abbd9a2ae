#include "train/optimizer_factory.h"

#include "train/adam_variants.h"
#include "train/foreach_adam.h"
#include "train/foreach_adamw.h"
#include "train/foreach_sgd.h"
#include "train/musgd.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

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
  if (canonicalOptimizerName(name) == "auto") {
    c.auto_chosen = true;
    if (iterations > kAutoMuSGDAbove) {
      c.name = "MuSGD";
      c.lr = kAutoMuSGDLr;
      c.momentum = kAutoMomentum;
    } else {
      c.name = "AdamW";
      c.lr = std::round(kAutoAdamWBase * kAutoAdamWScale / (kAutoAdamWClasses + nc) * 1e6) / 1e6;
      c.momentum = kAutoMomentum;
    }
    return c;
  }
  const auto& names = optimizerNames();
  c.name = canonicalOptimizerName(name);
  if (std::find(names.begin() + 1, names.end(), c.name) == names.end())
    fail("optimizer=", name, ": expected ", namedOptimizerList(), ", or auto");
  c.lr = lr0;
  c.momentum = momentum;
  return c;
}

namespace {

// The Detect head is the model's last layer, model.<last>; its class branches are its cv3 and one2one_cv3
// (Ultralytics 8.4 gives them 3x the learning rate under MuSGD). Backbone modules have cv3s too (C3k): not
// these.
std::string headPrefix(const ParamGroups& g) {
  int last = -1;
  for (const auto* names : {&g.bias_names, &g.weight_names, &g.bn_names})
    for (const auto& n : *names) {
      if (n.rfind("model.", 0) != 0) continue;
      const size_t dot = n.find('.', 6);
      const std::string index = n.substr(6, dot == std::string::npos ? std::string::npos : dot - 6);
      if (!index.empty() && std::all_of(index.begin(), index.end(), ::isdigit))
        last = std::max(last, std::stoi(index));
    }
  return last < 0 ? std::string() : "model." + std::to_string(last) + ".";
}

bool isClassBranch(const std::string& name, const std::string& head) {
  if (head.empty() || name.rfind(head, 0) != 0) return false;
  const std::string rest = name.substr(head.size());
  return rest.rfind("cv3.", 0) == 0 || rest.rfind("one2one_cv3.", 0) == 0;
}

constexpr double kClassLrScale = 3.0;

std::unique_ptr<torch::optim::Optimizer> makeMuSGD(const ParamGroups& g, const OptimizerChoice& c,
                                                   double decay) {
  const std::string head = headPrefix(g);
  struct Pair {
    std::vector<at::Tensor> cls, rest;
  };
  Pair weight, bn, bias, muon;
  auto sort = [&](const std::vector<at::Tensor>& params, const std::vector<std::string>& names, Pair& plain,
                  Pair* matrices) {
    for (size_t i = 0; i < params.size(); ++i) {
      Pair& to = matrices && params[i].dim() >= 2 ? *matrices : plain;
      (isClassBranch(names[i], head) ? to.cls : to.rest).push_back(params[i]);
    }
  };
  sort(g.weights, g.weight_names, weight, &muon);
  sort(g.bn_weights, g.bn_names, bn, nullptr);
  sort(g.biases, g.bias_names, bias, nullptr);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  auto add = [&](const Pair& p, const char* role, double wd, bool use_muon) {
    for (const bool cls : {true, false}) {
      auto o = std::make_unique<MuSGDOptions>(c.lr * (cls ? kClassLrScale : 1.0));
      o->momentum(c.momentum).nesterov(true).weight_decay(wd);
      o->use_muon(use_muon).role(role).lr_scale(cls ? kClassLrScale : 1.0);
      groups.emplace_back(cls ? p.cls : p.rest, std::move(o));
    }
  };
  add(weight, "weight", decay, false);
  add(bn, "bn", 0.0, false);
  add(bias, "bias", 0.0, false);
  add(muon, "muon", decay, true);
  return std::make_unique<MuSGD>(groups, MuSGDOptions(c.lr));
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const ParamGroups& g, const OptimizerChoice& c,
                                                       double decay) {
  if (c.name == "MuSGD") return makeMuSGD(g, c, decay);
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
  // The others as Ultralytics builds them: the Adam family with betas (momentum, 0.999), RMSprop with
  // momentum; each group's weight decay is added to its gradient (AdamW's is decoupled).
  std::vector<torch::optim::OptimizerParamGroup> groups;
  auto three = [&](auto make) {
    groups.emplace_back(g.biases, make(0.0));
    groups.emplace_back(g.weights, make(decay));
    groups.emplace_back(g.bn_weights, make(0.0));
  };
  const auto betas = std::make_tuple(c.momentum, 0.999);
  if (c.name == "AdamW") {
    using Options = torch::optim::AdamWOptions;
    three([&](double wd) { return std::make_unique<Options>(Options(c.lr).betas(betas).weight_decay(wd)); });
    return std::make_unique<ForeachAdamW>(groups, Options(c.lr));
  }
  if (c.name == "Adam") {
    using Options = torch::optim::AdamOptions;
    three([&](double wd) { return std::make_unique<Options>(Options(c.lr).betas(betas).weight_decay(wd)); });
    return std::make_unique<ForeachAdam>(groups, Options(c.lr));
  }
  if (c.name == "RMSProp") {
    using Options = torch::optim::RMSpropOptions;
    three([&](double wd) {
      return std::make_unique<Options>(Options(c.lr).momentum(c.momentum).weight_decay(wd));
    });
    return std::make_unique<ForeachRMSprop>(groups, Options(c.lr));
  }
  AdamVariantKind kind = AdamVariantKind::Adamax;
  if (c.name == "NAdam")
    kind = AdamVariantKind::NAdam;
  else if (c.name == "RAdam")
    kind = AdamVariantKind::RAdam;
  else if (c.name != "Adamax")
    fail("makeOptimizer: unknown optimizer ", c.name);
  three([&](double wd) {
    return std::make_unique<AdamVariantOptions>(AdamVariantOptions(kind, c.lr).betas(betas).weight_decay(wd));
  });
  return std::make_unique<AdamVariant>(groups, AdamVariantOptions(kind, c.lr));
}

double groupLr(torch::optim::Optimizer& opt, size_t i) {
  return opt.param_groups().at(i).options().get_lr();
}

void setGroupLr(torch::optim::Optimizer& opt, size_t i, double lr) {
  opt.param_groups().at(i).options().set_lr(lr);
}

void setGroupMomentum(torch::optim::Optimizer& opt, size_t i, double momentum) {
  auto& o = opt.param_groups().at(i).options();
  // Ultralytics warms up every group that has a "momentum" (SGD's, MuSGD's, RMSprop's); the Adam family has
  // betas instead and keeps beta1.
  if (auto* s = dynamic_cast<torch::optim::SGDOptions*>(&o))
    s->momentum(momentum);
  else if (auto* r = dynamic_cast<torch::optim::RMSpropOptions*>(&o))
    r->momentum(momentum);
}

double groupMomentum(torch::optim::Optimizer& opt, size_t i) {
  auto& o = opt.param_groups().at(i).options();
  if (auto* s = dynamic_cast<torch::optim::SGDOptions*>(&o)) return s->momentum();
  if (auto* r = dynamic_cast<torch::optim::RMSpropOptions*>(&o)) return r->momentum();
  if (auto* a = dynamic_cast<torch::optim::AdamWOptions*>(&o)) return std::get<0>(a->betas());
  if (auto* a = dynamic_cast<torch::optim::AdamOptions*>(&o)) return std::get<0>(a->betas());
  if (auto* a = dynamic_cast<AdamVariantOptions*>(&o)) return std::get<0>(a->betas());
  fail("unsupported optimizer options");
}

double groupLrScale(torch::optim::Optimizer& opt, size_t i) {
  const auto* m = dynamic_cast<const MuSGDOptions*>(&opt.param_groups().at(i).options());
  return m ? m->lr_scale() : 1.0;
}

bool isBiasGroup(torch::optim::Optimizer& opt, size_t i) {
  const auto* m = dynamic_cast<const MuSGDOptions*>(&opt.param_groups().at(i).options());
  return m ? m->role() == "bias" : i == 0;
}

void setScheduledLr(torch::optim::Optimizer& opt, size_t i, double lr) {
  setGroupLr(opt, i, lr * groupLrScale(opt, i));
}

std::array<size_t, 3> reportedGroups(torch::optim::Optimizer& opt) {
  std::array<size_t, 3> out{0, 1, 2};
  const char* roles[3] = {"bias", "muon", "bn"};
  for (size_t i = 0; i < opt.param_groups().size(); ++i) {
    const auto* m = dynamic_cast<const MuSGDOptions*>(&opt.param_groups()[i].options());
    if (!m || m->lr_scale() != 1.0) continue;
    for (size_t k = 0; k < 3; ++k)
      if (m->role() == roles[k]) out[k] = i;
  }
  return out;
}

namespace {

double weightDecayOf(const torch::optim::OptimizerOptions& o) {
  if (auto* s = dynamic_cast<const torch::optim::SGDOptions*>(&o)) return s->weight_decay();
  if (auto* a = dynamic_cast<const torch::optim::AdamWOptions*>(&o)) return a->weight_decay();
  if (auto* a = dynamic_cast<const torch::optim::AdamOptions*>(&o)) return a->weight_decay();
  if (auto* r = dynamic_cast<const torch::optim::RMSpropOptions*>(&o)) return r->weight_decay();
  if (auto* v = dynamic_cast<const AdamVariantOptions*>(&o)) return v->weight_decay();
  return 0.0;
}

}  // namespace

std::string describeGroups(torch::optim::Optimizer& opt) {
  auto& groups = opt.param_groups();
  std::ostringstream os;
  os << "parameter groups ";
  if (groups.size() == 3 && !dynamic_cast<const MuSGDOptions*>(&groups[0].options())) {
    os << groups[2].params().size() << " weight(decay=0.0), " << groups[1].params().size()
       << " weight(decay=" << weightDecayOf(groups[1].options()) << "), " << groups[0].params().size()
       << " bias(decay=0.0)";
    return os.str();
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto* m = dynamic_cast<const MuSGDOptions*>(&groups[i].options());
    if (!m) fail("describeGroups: unexpected optimizer options");
    os << (i ? ", " : "") << groups[i].params().size() << " " << m->role() << "(decay=" << m->weight_decay();
    if (m->lr_scale() != 1.0) os << ", class branches, lr x" << m->lr_scale();
    os << ")";
  }
  return os.str();
}

}  // namespace ywb
