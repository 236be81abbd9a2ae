// Training checkpoints as safetensors files: model, EMA and optimizer state as named tensors, gradients
// still being accumulated, and everything else (epoch, schedule position, scaler, RNG, configuration,
// metrics) as metadata. Written atomically: a kill at any moment leaves the previous file intact.
// Thread rules: trainer thread only.
#pragma once
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <string>

#include "io/safetensors.h"

namespace ywb {

/// Metadata key of the checkpoint format marker and its value.
inline constexpr const char* kCheckpointFormatKey = "format";
inline constexpr const char* kCheckpointFormat = "ywb-checkpoint/1";

struct CheckpointParts {
  torch::nn::Module* model = nullptr;            ///< training weights ("model.*")
  torch::nn::Module* ema = nullptr;              ///< EMA weights ("ema.*"): what validation and export use
  torch::optim::Optimizer* optimizer = nullptr;  ///< state as "optim.<group>.<index>.<field>"
  bool include_grads = false;  ///< save gradients being accumulated ("grad.*") for bit-exact resume
  std::map<std::string, std::string> metadata;
};

/// Writes the checkpoint to `path` atomically.
void saveCheckpoint(const std::string& path, const CheckpointParts& parts);

/// Reads a checkpoint (validating the format marker); throws ywb::Error naming the file otherwise.
SafetensorsFile readCheckpoint(const std::string& path);

/// Restores what `parts` points at from `file` (strictly: every tensor must match by name and shape).
void restoreCheckpoint(const SafetensorsFile& file, const CheckpointParts& parts);

/// The tensors under `prefix` ("ema." or "model.") with the prefix removed, e.g. for export/import.
NamedTensors checkpointWeights(const SafetensorsFile& file, const std::string& prefix);

}  // namespace ywb
