// The model's training forward and backward as CUDA graphs (both heads of an end-to-end model) for fixed
// input shapes: one graph replays the forward (BatchNorm statistics included), a second the backward from the
// gradients of the feature maps to the parameters' gradients, wrapped in an autograd function (the scheme of
// PyTorch's make_graphed_callables). The loss, the loss scaler, the optimizer and EMA stay eager around it
// (the loss's task-aligned assignment has data-dependent shapes), and gradient accumulation works as in eager
// mode. GraphCapturePolicy decides when to capture, replay or run eagerly. Without CUDA compiled in, or on a
// CPU device, every step is eager. Thread rules: the trainer thread owns it; the model must not be used by
// another thread meanwhile.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cuda/graph_capture_policy.h"
#include "model/detection_model.h"

namespace ywb::cuda {

class GraphedModel {
 public:
  GraphedModel(model::DetectionModel model, GraphPolicyOptions options = {});
  ~GraphedModel();
  GraphedModel(const GraphedModel&) = delete;
  GraphedModel& operator=(const GraphedModel&) = delete;

  /// The training forward of `x` (its maps, in the autocast dtype when `autocast`), eager, captured or
  /// replayed as the policy decides; backward through the result reaches the parameters in every case.
  /// The returned tensors are overwritten by the next call: run the loss and backward before it.
  std::vector<at::Tensor> forward(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype);
  /// Both branches of an end-to-end head (YOLO26), captured and replayed together as one graph (the
  /// one-to-one maps from detached features, as model::DetectionModelImpl::forwardHeads); for other heads
  /// one2one is empty. Same lifetime rule as forward().
  model::HeadOutputs forwardHeads(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype);

  const GraphCapturePolicy& policy() const;
  /// Whether graphs can be used at all: CUDA compiled in and the model on a CUDA device.
  bool available() const;
  /// Drops the graphs held (their memory pool goes back to the allocator), e.g. before validation.
  void reset();

 private:
  std::vector<at::Tensor> run(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb::cuda
