// A YOLO detection model built from an Ultralytics-format model YAML (see model_spec.h). Submodule names
// reproduce Ultralytics' state-dict keys ("model.0.conv.weight", ..., "model.22.dfl.conv.weight").
// Thread rules: a model is used by one thread at a time (LibTorch modules are not thread-safe).
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/detect.h"
#include "model/model_spec.h"

namespace ywb::model {

/// One resolved row of the model: what `ywb model info` prints.
struct LayerInfo {
  int index = 0;
  std::vector<int> from;  ///< absolute indices; -1 = network input
  std::string from_text;  ///< as written in the YAML ("-1", "[-1, 6]")
  int repeats = 1;        ///< after the depth multiple
  std::string module;     ///< "Conv", "C2f", ...
  std::string args;       ///< resolved arguments, Ultralytics style: "[3, 16, 3, 2]"
  int64_t channels = 0;   ///< output channels
  int64_t stride = 1;     ///< output stride relative to the input
};

struct ModelBuildState;

class DetectionModelImpl : public torch::nn::Module {
 public:
  explicit DetectionModelImpl(const ModelSpec& spec);

  /// x: float [N,3,H,W] in [0,1], H and W multiples of the largest stride. Returns the Detect head's raw maps
  /// [N, 4*reg_max+nc, H/s, W/s] for s = 8, 16, 32 of the one-to-many branches, in train and eval mode alike
  /// (the loss and decode take these).
  std::vector<at::Tensor> forward(const at::Tensor& x);
  /// Both branches' raw maps (HeadOutputs::one2one only for an end-to-end model, from detached features):
  /// what the end-to-end loss takes. one2many is what forward() returns, bit for bit.
  HeadOutputs forwardHeads(const at::Tensor& x);
  /// The raw maps inference decodes: the one-to-one branches when `end2end` and the model has them, else
  /// the one-to-many ones (forward()). Only the chosen branches run. `head_inputs`, when given, gets the
  /// head's input maps [N, C_l, H/s, W/s] (the features BoT-SORT's ReID reads, as Ultralytics' hook does).
  std::vector<at::Tensor> forwardInference(const at::Tensor& x, bool end2end = true,
                                           std::vector<at::Tensor>* head_inputs = nullptr);
  /// Inference output [N, 4+nc, A] of the one-to-many branches: boxes xywh in input pixels, sigmoid class
  /// scores (Ultralytics' output, the input of NMS). `head_inputs` as forwardInference's.
  at::Tensor predict(const at::Tensor& x, std::vector<at::Tensor>* head_inputs = nullptr);
  /// Outputs of the chosen layers (indices 0 .. layers()-2) for x, without autograd state.
  std::vector<at::Tensor> taps(const at::Tensor& x, const std::vector<int>& layers);

  int nc() const { return int(spec_.nc); }
  /// Whether the head has one-to-one branches (YOLO26): inference without NMS.
  bool end2end() const { return detect_->options.end2end(); }
  int64_t regMax() const { return detect_->options.reg_max(); }
  std::vector<int64_t> strides() const { return detect_->options.strides(); }
  /// Folds every BatchNorm into its convolution (for inference and export). Idempotent.
  void fuse();
  bool fused() const { return fused_; }
  const std::string& yaml() const { return spec_.yaml; }
  const std::string& scale() const { return spec_.scale; }
  const ModelSpec& spec() const { return spec_; }
  const std::vector<LayerInfo>& layerInfo() const { return info_; }
  /// Forward FLOPs (multiply-add = 2) for one h x w image; `count_bn` adds unfused BatchNorms like thop.
  /// The head counts its one-to-many branches, or with `one2one` its one-to-one ones.
  double flops(int64_t h, int64_t w, bool count_bn, bool one2one = false) const;
  /// A training step's forward FLOPs for one h x w image: the trunk and every head branch forwardHeads runs
  /// (an end-to-end head's one-to-many and one-to-one branches both), BatchNorm not counted.
  double trainingFlops(int64_t h, int64_t w) const;
  /// The submodule of layer i ("model.<i>").
  std::shared_ptr<torch::nn::Module> layer(int i) const { return layers_[size_t(i)]; }
  int layers() const { return int(layers_.size()); }
  /// Freezes these layers for training (Ultralytics' `freeze`): their parameters stop requiring gradients and
  /// their BatchNorms stay in eval mode whenever the model trains, so their running statistics stay as
  /// loaded. Indices must be in [0, layers()); the list replaces any earlier one (parameters of layers no
  /// longer frozen are not unfrozen: a model is frozen once, after its weights are loaded).
  void freezeLayers(const std::vector<int>& layers);
  const std::vector<int>& frozenLayers() const { return frozen_; }
  /// Module::train, keeping the frozen layers' BatchNorms in eval mode.
  void train(bool on = true) override;
  Detect& detect() { return detect_; }

 private:
  using Run = std::function<at::Tensor(const std::vector<at::Tensor>&)>;
  using Flops = std::function<LayerFlops(int64_t, int64_t, bool)>;
  void addLayer(const LayerSpec& row, std::vector<int64_t>* ch, std::vector<int64_t>* stride,
                ModelBuildState* state);
  /// Runs layers 0..last (last < Detect) keeping the outputs of `keep`; returns the outputs by index.
  std::vector<at::Tensor> runBackbone(const at::Tensor& x, int last, const std::vector<bool>& keep);
  /// The head's inputs for x (checks x's shape).
  std::vector<at::Tensor> headInputs(const at::Tensor& x);
  /// FLOPs of the layers before Detect for an h x w input; `levels` gets the sizes of Detect's inputs.
  double trunkFlops(int64_t h, int64_t w, bool count_bn,
                    std::vector<std::pair<int64_t, int64_t>>* levels) const;

  ModelSpec spec_;
  std::vector<LayerInfo> info_;
  torch::nn::ModuleList list_{nullptr};  ///< registered as "model"
  std::vector<std::shared_ptr<torch::nn::Module>> layers_;
  std::vector<Run> run_;
  std::vector<Flops> flops_;
  std::vector<std::function<void()>> fuse_;
  std::vector<bool> saved_;  ///< outputs read by a later layer other than the next
  Detect detect_{nullptr};
  bool fused_ = false;
  std::vector<int> frozen_;  ///< frozen layers, ascending
};
TORCH_MODULE(DetectionModel);

/// Builds a model from a built-in name ("yolov8n.yaml"), a YAML path or YAML text; nc > 0 overrides classes.
/// `modules`: the Ultralytics module form ("8.3"/"8.4") when the YAML does not say (ModelSpec::modules);
/// empty = kUltralyticsModules (8.4).
DetectionModel buildModel(const std::string& yaml_or_name, int nc = 0, const std::string& modules = "");

/// The Python class names (without module path) of the pickled modules this engine can rebuild from an
/// Ultralytics checkpoint, e.g. "C3k2", "SPPF", "Detect", "Conv2d", "Identity".
const std::vector<std::string>& rebuildableModuleClasses();

/// A deep copy (same spec, fused state, parameters, buffers, requires_grad flags, frozen layers, device,
/// dtype and train/eval mode), e.g. for an EMA model. LibTorch's clone() is not available for this module.
DetectionModel cloneModel(const DetectionModel& model);

}  // namespace ywb::model
