// Loads a model for inference from a training checkpoint (its EMA weights) or exported safetensors
// weights, with its class names and training image size. Thread rules: call from the thread that uses it.
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "model/detection_model.h"

namespace ywb {

struct LoadedModel {
  model::DetectionModel model{nullptr};
  std::vector<std::string> names;
  int imgsz = 640;
  std::string kind;  ///< "checkpoint" or "weights"
};

/// Reads `path`, builds the model from the YAML stored in it and loads the weights strictly (a YAML that
/// does not match the weights is an error naming the tensors). The model is in eval mode on `device`.
LoadedModel loadModelWeights(const std::string& path, const at::Device& device);

}  // namespace ywb
