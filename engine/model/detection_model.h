// A YOLO detection model built from an Ultralytics-format model YAML (see model_spec.h). Submodule names
// reproduce Ultralytics' state-dict keys ("model.0.conv.weight", ..., "model.22.dfl.conv.weight").
// Thread rules: a model is used by one thread at a time (LibTorch modules are not thread-safe).
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <string>
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
  /// [N, 4*16+nc, H/s, W/s] for s = 8, 16, 32, in train and eval mode alike (the loss and decode take these).
  std::vector<at::Tensor> forward(const at::Tensor& x);
  /// Inference output [N, 4+nc, A]: boxes xywh in input pixels, sigmoid class scores (Ultralytics' output).
  at::Tensor predict(const at::Tensor& x);
  /// Outputs of the chosen layers (indices 0 .. layers()-2) for x, without autograd state.
  std::vector<at::Tensor> taps(const at::Tensor& x, const std::vector<int>& layers);

  int nc() const { return int(spec_.nc); }
  std::vector<int64_t> strides() const { return detect_->options.strides(); }
  /// Folds every BatchNorm into its convolution (for inference and export). Idempotent.
  void fuse();
  bool fused() const { return fused_; }
  const std::string& yaml() const { return spec_.yaml; }
  const std::string& scale() const { return spec_.scale; }
  const ModelSpec& spec() const { return spec_; }
  const std::vector<LayerInfo>& layerInfo() const { return info_; }
  /// Forward FLOPs (multiply-add = 2) for one h x w image; `count_bn` adds unfused BatchNorms like thop.
  double flops(int64_t h, int64_t w, bool count_bn) const;
  /// The submodule of layer i ("model.<i>").
  std::shared_ptr<torch::nn::Module> layer(int i) const { return layers_[size_t(i)]; }
  Detect& detect() { return detect_; }

 private:
  using Run = std::function<at::Tensor(const std::vector<at::Tensor>&)>;
  using Flops = std::function<LayerFlops(int64_t, int64_t, bool)>;
  void addLayer(const LayerSpec& row, std::vector<int64_t>* ch, std::vector<int64_t>* stride,
                ModelBuildState* state);
  /// Runs layers 0..last (last < Detect) keeping the outputs of `keep`; returns the outputs by index.
  std::vector<at::Tensor> runBackbone(const at::Tensor& x, int last, const std::vector<bool>& keep);

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
};
TORCH_MODULE(DetectionModel);

/// Builds a model from a built-in name ("yolov8n.yaml"), a YAML path or YAML text; nc > 0 overrides classes.
DetectionModel buildModel(const std::string& yaml_or_name, int nc = 0);

/// A deep copy (same spec, fused state, parameters, buffers, requires_grad flags, device, dtype and
/// train/eval mode), e.g. for an EMA model. LibTorch's clone() is not available for this module.
DetectionModel cloneModel(const DetectionModel& model);

}  // namespace ywb::model
