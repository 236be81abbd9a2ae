#include "train/checkpoint.h"

#include "core/error.h"
#include "core/torch_compat.h"
#include "io/state_dict.h"
#include "train/optimizer_state_io.h"

namespace ywb {
namespace {

void addPrefixed(NamedTensors& out, const std::string& prefix, const torch::nn::Module& m) {
  for (auto& [name, t] : namedStateDict(m)) out.emplace_back(prefix + name, t.detach());
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
