// Loads a model for inference from a training checkpoint (its EMA weights), exported safetensors weights or
// an Ultralytics .pt checkpoint (its EMA model when present), with its class names and training image size.
// Thread rules: call from the thread that uses it.
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/detection_model.h"

namespace ywb {

struct LoadedModel {
  model::DetectionModel model{nullptr};
  std::vector<std::string> names;
  int imgsz = 640;
  std::string kind;  ///< "checkpoint", "weights" or "ultralytics .pt"
};

/// A weights file's model weights (Ultralytics names) with what rebuilds the model: its YAML text (a .pt
/// gives its YAML dict as JSON text), class names and training image size.
struct WeightsWithModel {
  NamedTensors tensors;
  std::string yaml;
  /// The Ultralytics module form ("8.3"/"8.4") to build `yaml` with when it does not say (model::buildModel's
  /// `modules`): a .pt's pickled modules decide (SPPF cv1 with or without SiLU), else its Ultralytics
  /// version; our own files without the key were written before it existed, with 8.3's modules.
  std::string modules;
  std::string pt_architecture;      ///< a .pt's module description (io/pt_architecture.h JSON), else empty
  std::string ultralytics_version;  ///< a .pt's Ultralytics version, else empty
  std::vector<std::string> names;
  int imgsz = 640;
  std::string kind;
};

/// Reads any weights file (.safetensors weights or checkpoint, Ultralytics .pt; a .pt is recognised by its
/// zip signature too). Throws ywb::Error naming the file when it cannot rebuild a model (e.g. a plain
/// state dict, which says how to use it instead).
WeightsWithModel readWeightsWithModel(const std::string& path);

/// For an Ultralytics .pt (w.pt_architecture set): throws ywb::Error naming what the checkpoint holds that
/// this version cannot build (module classes, activations) or any Conv whose activation `m` (built from
/// w.yaml and w.modules) does not have as pickled. Does nothing for other files.
void checkRebuiltAsPickled(const std::string& path, const WeightsWithModel& w, model::DetectionModelImpl& m);

/// The model weights of any weights file, for transfer (pretrained=): a training checkpoint's EMA weights,
/// exported weights, or a .pt's state dict (Ultralytics checkpoint or plain state dict).
NamedTensors readModelTensors(const std::string& path);

/// Whether `model` names a weights file (an existing .pt/.pth/zip or .safetensors file) rather than a YAML:
/// `ywb train model=X.pt` starts from its architecture and weights (Ultralytics' meaning).
bool isWeightsPath(const std::string& model);

/// Whether `path` is named as a weights file (ywb::weightsFileSuffixes), whether or not it exists.
bool hasWeightsSuffix(const std::string& path);

/// Reads `path`, builds the model from the YAML stored in it and loads the weights strictly (a YAML that
/// does not match the weights is an error naming the tensors). An Ultralytics .pt is rebuilt as its pickled
/// modules say: modules we cannot build, or a Conv whose activation differs from the rebuilt one, are errors
/// naming them. The model is in eval mode on `device`.
LoadedModel loadModelWeights(const std::string& path, const at::Device& device);

}  // namespace ywb
