// Weights from any file the product reads: YOLO Workbench safetensors (weights or training checkpoint) or a
// PyTorch .pt checkpoint (Ultralytics' or a plain state dict), as LibTorch tensors with their metadata.
// Thread rules: free functions without shared state; call from any thread.
#pragma once
#include <string>

#include "io/safetensors.h"

namespace ywb {

/// Reads a PyTorch .pt checkpoint: the state dict (EMA model when present) as owned contiguous CPU tensors
/// in the file's dtype, with metadata under the weights_key names (format "ultralytics-pt" or
/// "pytorch-state-dict", names, nc, imgsz, yaml (JSON text of the model dict), args) plus date,
/// ultralytics_version, epoch, best_fitness, train_metrics. Never runs code from the file.
SafetensorsFile readPtWeights(const std::string& path);

/// readPtWeights for .pt files, readSafetensors otherwise.
SafetensorsFile readWeightsFile(const std::string& path);

}  // namespace ywb
