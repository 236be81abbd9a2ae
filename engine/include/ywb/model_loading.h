// Loading trained weights into a torch-free ModelHandle (for the GUI's Feature maps tab): a training
// checkpoint's EMA weights or exported safetensors weights, on the CPU.
// Thread rules: reentrant; the handle is then used by one thread at a time (see feature_maps.h).
#pragma once
#include <string>
#include <vector>

#include "ywb/feature_maps.h"

namespace ywb {

struct LoadedModelInfo {
  std::vector<std::string> names;  ///< class names stored with the weights
  int imgsz = 640;                 ///< training image size stored with the weights
  std::string kind;                ///< "checkpoint" (EMA weights) or "weights"
};

/// Builds the model stored in `weights_path` and loads its weights strictly (CPU, eval mode). Fills `info`
/// when given. Throws ywb::Error for a missing file or weights that do not match their YAML.
ModelHandle loadModelHandle(const std::string& weights_path, LoadedModelInfo* info = nullptr);

}  // namespace ywb
