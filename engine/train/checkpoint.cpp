#include "train/checkpoint.h"

#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include "core/error.h"
#include "core/torch_compat.h"
#include "io/state_dict.h"
#include "train/musgd.h"

namespace ywb {
namespace {

// A copy of `t` with the dtype, device and memory layout (e.g. channels-last) of parameter `p`: optimizer
// state and gradients restored in the layout the uninterrupted run has, so reductions over them (the
// gradient norm) sum in the same order and a resumed run stays bit-identical.
at::Tensor likeParam(const at::Tensor& t, const at::Tensor& p) {
  at::Tensor out = at::empty_like(p);
  out.copy_(t);
  return out;
}

void addPrefixed(NamedTensors& out, const std::string& prefix, const torch::nn::Module& m) {
  for (auto& [name, t] : namedStateDict(m)) out.emplace_back(prefix + name, t.detach());
}

std::string optimKey(size_t group, size_t index, const char* field) {
  return "optim." + std::to_string(group) + "." + std::to_string(index) + "." + field;
}

void addOptimizerState(NamedTensors& out, torch::optim::Optimizer& opt) {
  auto& state = opt.state();
  for (size_t g = 0; g < opt.param_groups().size(); ++g) {
    const auto& params = opt.param_groups()[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      auto it = state.find(compat::optimizerStateKey(state, params[i]));
      if (it == state.end()) continue;
      if (auto* m = dynamic_cast<MuSGDParamState*>(it->second.get())) {
        if (m->momentum_buffer().defined())
          out.emplace_back(optimKey(g, i, "momentum_buffer"), m->momentum_buffer());
        if (m->muon_buffer().defined()) out.emplace_back(optimKey(g, i, "muon_buffer"), m->muon_buffer());
      } else if (auto* s = dynamic_cast<torch::optim::SGDParamState*>(it->second.get())) {
        if (s->momentum_buffer().defined())
          out.emplace_back(optimKey(g, i, "momentum_buffer"), s->momentum_buffer());
      } else if (auto* a = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get())) {
        out.emplace_back(optimKey(g, i, "step"), at::full({1}, a->step(), at::kLong));
        out.emplace_back(optimKey(g, i, "exp_avg"), a->exp_avg());
        out.emplace_back(optimKey(g, i, "exp_avg_sq"), a->exp_avg_sq());
      }
    }
  }
}

void restoreOptimizerState(const SafetensorsFile& file, torch::optim::Optimizer& opt) {
  auto& state = opt.state();
  const bool sgd = dynamic_cast<torch::optim::SGD*>(&opt) != nullptr;
  const bool musgd = dynamic_cast<MuSGD*>(&opt) != nullptr;
  for (size_t g = 0; g < opt.param_groups().size(); ++g) {
    const auto& params = opt.param_groups()[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      const auto key = compat::optimizerStateKey(state, p);
      if (musgd) {  // SGD's buffer and, for 2+-dim parameters, Muon's
        const std::string k = optimKey(g, i, "momentum_buffer"), km = optimKey(g, i, "muon_buffer");
        if (!file.contains(k) && !file.contains(km)) continue;
        auto s = std::make_unique<MuSGDParamState>();
        if (file.contains(k)) s->momentum_buffer(likeParam(file.at(k), p));
        if (file.contains(km)) s->muon_buffer(likeParam(file.at(km), p));
        state[key] = std::move(s);
      } else if (sgd) {
        const std::string k = optimKey(g, i, "momentum_buffer");
        if (!file.contains(k)) continue;
        auto s = std::make_unique<torch::optim::SGDParamState>();
        s->momentum_buffer(likeParam(file.at(k), p));
        state[key] = std::move(s);
      } else {
        const std::string k = optimKey(g, i, "exp_avg");
        if (!file.contains(k)) continue;
        auto s = std::make_unique<torch::optim::AdamWParamState>();
        s->step(file.at(optimKey(g, i, "step")).item<int64_t>());
        s->exp_avg(likeParam(file.at(k), p));
        s->exp_avg_sq(likeParam(file.at(optimKey(g, i, "exp_avg_sq")), p));
        state[key] = std::move(s);
      }
    }
  }
}

}  // namespace

CheckpointContent liveCheckpoint(const CheckpointParts& parts) {
  CheckpointContent c;  // in file order
  if (parts.model) addPrefixed(c.tensors, "model.", *parts.model);
  if (parts.ema) addPrefixed(c.tensors, "ema.", *parts.ema);
  if (parts.optimizer) addOptimizerState(c.tensors, *parts.optimizer);
  if (parts.include_grads && parts.model) {
    for (const auto& p : parts.model->named_parameters()) {
      if (p.value().grad().defined()) c.tensors.emplace_back("grad." + p.key(), p.value().grad());
    }
  }
  c.metadata = parts.metadata;
  c.metadata[kCheckpointFormatKey] = kCheckpointFormat;
  return c;
}

void saveCheckpoint(const std::string& path, const CheckpointParts& parts) {
  saveCheckpoint(path, liveCheckpoint(parts));
}

CheckpointContent snapshotCheckpoint(const CheckpointParts& parts) {
  torch::NoGradGuard no_grad;
  CheckpointContent live_content = liveCheckpoint(parts);
  const NamedTensors& live = live_content.tensors;
  // Per device and dtype, every tensor flattened (in its logical order: channels-last ones are reordered)
  // into one buffer: a copy on the device, then one copy to the host.
  std::map<std::pair<std::string, c10::ScalarType>, std::vector<size_t>> groups;
  for (size_t i = 0; i < live.size(); ++i)
    groups[{live[i].second.device().str(), live[i].second.scalar_type()}].push_back(i);
  CheckpointContent out;
  out.tensors.resize(live.size());
  out.metadata = std::move(live_content.metadata);
  for (const auto& [key, members] : groups) {
    std::vector<at::Tensor> flat;
    flat.reserve(members.size());
    for (size_t i : members) flat.push_back(live[i].second.reshape({-1}));
    at::Tensor host = at::cat(flat).to(at::kCPU);  // a new buffer, also where the tensors were on the CPU
    int64_t offset = 0;
    for (size_t i : members) {
      const at::Tensor& t = live[i].second;
      out.tensors[i] = {live[i].first, host.narrow(0, offset, t.numel()).view(t.sizes())};
      offset += t.numel();
    }
  }
  return out;
}

void saveCheckpoint(const std::string& path, const CheckpointContent& content) {
  writeSafetensors(path, content.tensors, content.metadata, /*checksums=*/true);
}

uint64_t checkpointFileSize(const CheckpointContent& content) {
  return safetensorsFileSize(content.tensors, content.metadata, /*checksums=*/true);
}

void requireCheckpointFormat(const std::map<std::string, std::string>& metadata, const std::string& path) {
  auto it = metadata.find(kCheckpointFormatKey);
  if (it == metadata.end() || it->second != kCheckpointFormat) {
    throw NotACheckpointError(
        path + ": not a YOLO Workbench training checkpoint (no '" + kCheckpointFormat +
        "' marker); exported weights cannot be resumed, use pretrained= to start from them");
  }
}

SafetensorsFile readCheckpoint(const std::string& path) {
  SafetensorsFile f = readSafetensors(path);
  requireCheckpointFormat(f.metadata, path);
  return f;
}

NamedTensors checkpointWeights(const SafetensorsFile& file, const std::string& prefix) {
  NamedTensors out;
  for (const auto& [name, t] : file.tensors) {
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), t);
  }
  return out;
}

void restoreCheckpoint(const SafetensorsFile& file, const CheckpointParts& parts) {
  torch::NoGradGuard no_grad;
  if (parts.model) loadStateDict(*parts.model, checkpointWeights(file, "model."), /*strict=*/true);
  if (parts.ema) loadStateDict(*parts.ema, checkpointWeights(file, "ema."), /*strict=*/true);
  if (parts.optimizer) restoreOptimizerState(file, *parts.optimizer);
  if (parts.model) {
    for (auto& p : parts.model->named_parameters()) {
      const std::string k = "grad." + p.key();
      if (file.contains(k)) p.value().mutable_grad() = likeParam(file.at(k), p.value());
    }
  }
}

}  // namespace ywb
