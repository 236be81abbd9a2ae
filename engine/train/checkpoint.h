// Training checkpoints as safetensors files: model, EMA and optimizer state as named tensors, gradients
// still being accumulated, and everything else (epoch, schedule position, scaler, RNG, configuration,
// metrics) as metadata. Written atomically: a kill at any moment leaves the previous file intact.
// Thread rules: trainer thread only, except saveCheckpoint and checkpointFileSize of a CheckpointContent
// (any thread: it is a copy).
#pragma once
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <string>

#include "io/safetensors.h"
#include "ywb/error.h"

namespace ywb {

/// Metadata key of the checkpoint format marker and its value.
inline constexpr const char* kCheckpointFormatKey = "format";
inline constexpr const char* kCheckpointFormat = "ywb-checkpoint/1";

/// The file is readable but not a training checkpoint (no format marker): e.g. exported weights.
class NotACheckpointError : public Error {
 public:
  using Error::Error;
};

struct CheckpointParts {
  torch::nn::Module* model = nullptr;            ///< training weights ("model.*")
  torch::nn::Module* ema = nullptr;              ///< EMA weights ("ema.*"): what validation and export use
  torch::optim::Optimizer* optimizer = nullptr;  ///< state as "optim.<group>.<index>.<field>"
  bool include_grads = false;  ///< save gradients being accumulated ("grad.*") for bit-exact resume
  std::map<std::string, std::string> metadata;
};

/// Writes the checkpoint to `path` atomically, with the safetensors checksums (header and tensor data) that
/// readers verify. Throws FileWriteError (core/atomic_file.h) when it cannot be written.
void saveCheckpoint(const std::string& path, const CheckpointParts& parts);

/// A checkpoint's tensors and metadata as they were at one moment, in host memory of their own: training can
/// go on while another thread writes them.
struct CheckpointContent {
  NamedTensors tensors;  ///< snapshotCheckpoint: contiguous CPU tensors, views into one buffer per dtype
  std::map<std::string, std::string> metadata;
};

/// What `parts` holds, without a copy: the live tensors (for writing at once on the trainer thread).
CheckpointContent liveCheckpoint(const CheckpointParts& parts);

/// Copies what `parts` holds now into a CheckpointContent. Device tensors are gathered on the device into one
/// buffer per dtype and copied to the host at once (one device sync, not one per tensor).
CheckpointContent snapshotCheckpoint(const CheckpointParts& parts);

/// saveCheckpoint of a snapshot; any thread.
void saveCheckpoint(const std::string& path, const CheckpointContent& content);

/// The size in bytes of the file saveCheckpoint(path, content) writes.
uint64_t checkpointFileSize(const CheckpointContent& content);

/// Reads a checkpoint (validating the format marker, and the checksums when it has them); throws ywb::Error
/// naming the file otherwise.
SafetensorsFile readCheckpoint(const std::string& path);

/// Throws NotACheckpointError naming `path` unless `metadata` carries the checkpoint format marker.
void requireCheckpointFormat(const std::map<std::string, std::string>& metadata, const std::string& path);

/// Restores what `parts` points at from `file` (strictly: every tensor must match by name and shape).
void restoreCheckpoint(const SafetensorsFile& file, const CheckpointParts& parts);

/// The tensors under `prefix` ("ema." or "model.") with the prefix removed, e.g. for export/import.
NamedTensors checkpointWeights(const SafetensorsFile& file, const std::string& prefix);

}  // namespace ywb
