#include "train/optimizer_state_io.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "core/torch_compat.h"
#include "train/adam_variants.h"
#include "train/musgd.h"

namespace ywb {
namespace {

std::string optimKey(size_t group, size_t index, const char* field) {
  return "optim." + std::to_string(group) + "." + std::to_string(index) + "." + field;
}

at::Tensor stepTensor(int64_t step) {
  return at::full({1}, step, at::kLong);
}

// Adam-style state (step, exp_avg, exp_avg_sq): AdamW's, Adam's and AdamVariant's.
template <class State>
void addMoments(NamedTensors& out, const State& a, size_t g, size_t i) {
  out.emplace_back(optimKey(g, i, "step"), stepTensor(a.step()));
  out.emplace_back(optimKey(g, i, "exp_avg"), a.exp_avg());
  out.emplace_back(optimKey(g, i, "exp_avg_sq"), a.exp_avg_sq());
}

template <class State>
std::unique_ptr<State> readMoments(const SafetensorsFile& file, const at::Tensor& p, size_t g, size_t i) {
  const std::string k = optimKey(g, i, "exp_avg");
  if (!file.contains(k)) return nullptr;
  auto s = std::make_unique<State>();
  s->step(file.at(optimKey(g, i, "step")).item<int64_t>());
  s->exp_avg(likeParam(file.at(k), p));
  s->exp_avg_sq(likeParam(file.at(optimKey(g, i, "exp_avg_sq")), p));
  return s;
}

}  // namespace

at::Tensor likeParam(const at::Tensor& t, const at::Tensor& p) {
  at::Tensor out = at::empty_like(p);
  out.copy_(t);
  return out;
}

void addOptimizerState(NamedTensors& out, torch::optim::Optimizer& opt) {
  auto& state = opt.state();
  for (size_t g = 0; g < opt.param_groups().size(); ++g) {
    const auto& params = opt.param_groups()[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      auto it = state.find(compat::optimizerStateKey(state, params[i]));
      if (it == state.end()) continue;
      auto* st = it->second.get();
      if (auto* m = dynamic_cast<MuSGDParamState*>(st)) {
        if (m->momentum_buffer().defined())
          out.emplace_back(optimKey(g, i, "momentum_buffer"), m->momentum_buffer());
        if (m->muon_buffer().defined()) out.emplace_back(optimKey(g, i, "muon_buffer"), m->muon_buffer());
      } else if (auto* s = dynamic_cast<torch::optim::SGDParamState*>(st)) {
        if (s->momentum_buffer().defined())
          out.emplace_back(optimKey(g, i, "momentum_buffer"), s->momentum_buffer());
      } else if (auto* aw = dynamic_cast<torch::optim::AdamWParamState*>(st)) {
        addMoments(out, *aw, g, i);
      } else if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(st)) {
        addMoments(out, *a, g, i);
      } else if (auto* v = dynamic_cast<AdamVariantParamState*>(st)) {
        addMoments(out, *v, g, i);
      } else if (auto* r = dynamic_cast<torch::optim::RMSpropParamState*>(st)) {
        out.emplace_back(optimKey(g, i, "step"), stepTensor(r->step()));
        out.emplace_back(optimKey(g, i, "square_avg"), r->square_avg());
        if (r->momentum_buffer().defined())
          out.emplace_back(optimKey(g, i, "momentum_buffer"), r->momentum_buffer());
      }
    }
  }
}

void restoreOptimizerState(const SafetensorsFile& file, torch::optim::Optimizer& opt) {
  auto& state = opt.state();
  const bool musgd = dynamic_cast<MuSGD*>(&opt) != nullptr;
  const bool sgd = !musgd && dynamic_cast<torch::optim::SGD*>(&opt) != nullptr;
  const bool adamw = dynamic_cast<torch::optim::AdamW*>(&opt) != nullptr;
  const bool adam = dynamic_cast<torch::optim::Adam*>(&opt) != nullptr;
  const bool rmsprop = dynamic_cast<torch::optim::RMSprop*>(&opt) != nullptr;
  for (size_t g = 0; g < opt.param_groups().size(); ++g) {
    const auto& params = opt.param_groups()[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      const auto key = compat::optimizerStateKey(state, p);
      std::unique_ptr<torch::optim::OptimizerParamState> restored;
      const std::string kb = optimKey(g, i, "momentum_buffer");
      if (musgd) {  // SGD's buffer and, for 2+-dim parameters, Muon's
        const std::string km = optimKey(g, i, "muon_buffer");
        if (!file.contains(kb) && !file.contains(km)) continue;
        auto s = std::make_unique<MuSGDParamState>();
        if (file.contains(kb)) s->momentum_buffer(likeParam(file.at(kb), p));
        if (file.contains(km)) s->muon_buffer(likeParam(file.at(km), p));
        restored = std::move(s);
      } else if (sgd) {
        if (!file.contains(kb)) continue;
        auto s = std::make_unique<torch::optim::SGDParamState>();
        s->momentum_buffer(likeParam(file.at(kb), p));
        restored = std::move(s);
      } else if (rmsprop) {
        const std::string k = optimKey(g, i, "square_avg");
        if (!file.contains(k)) continue;
        auto s = std::make_unique<torch::optim::RMSpropParamState>();
        s->step(file.at(optimKey(g, i, "step")).item<int64_t>());
        s->square_avg(likeParam(file.at(k), p));
        if (file.contains(kb)) s->momentum_buffer(likeParam(file.at(kb), p));
        restored = std::move(s);
      } else if (adamw) {
        restored = readMoments<torch::optim::AdamWParamState>(file, p, g, i);
      } else if (adam) {
        restored = readMoments<torch::optim::AdamParamState>(file, p, g, i);
      } else {
        restored = readMoments<AdamVariantParamState>(file, p, g, i);
      }
      if (restored) state[key] = std::move(restored);
    }
  }
}

}  // namespace ywb
