// The whole training step as one CUDA graph (graph_step=true with cuda_graphs=true, issue 33): the model's
// forward, the graph-ready loss, the scaled backward and GraphReadyStep's update (optimizer, loss scale,
// EMA), captured once per input shape and replayed with the images and the padded targets copied into the
// graph's static buffers. GraphCapturePolicy decides as for GraphedModel: eager warm-up steps of a shape
// first (cuDNN's autotuner and lazy initialisation synchronise, which a capture forbids), other shapes (the
// short last batch) eagerly, a bounded number of captures, and a failed capture turns graphs off with a note.
// With capture off (no CUDA compiled in, a CPU device, cuda_graphs=false) every step runs the body eagerly:
// the CPU stand-in. The graph holds the addresses of the model's parameters and gradients and of the
// GraphReadyStep's tensors: it must be dropped (reset) before any of them is replaced. Not yet run on a GPU.
// Thread rules: the trainer thread owns it.
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>

#include "cuda/graph_capture_policy.h"
#include "data/grouped_targets.h"

namespace ywb::cuda {

class WholeStepGraph {
 public:
  /// One whole step on the given inputs: forward, loss, scaled backward, optimizer update. Returns the
  /// loss items [3] (detached). Must not read anything back to the host.
  using Body = std::function<at::Tensor(const at::Tensor& x, const GroupedTargets& targets)>;

  /// `capture`: capture and replay CUDA graphs (only where CUDA is compiled in and the inputs are on a CUDA
  /// device); false: the body runs eagerly every step.
  explicit WholeStepGraph(bool capture, GraphPolicyOptions options = {});
  ~WholeStepGraph();
  WholeStepGraph(const WholeStepGraph&) = delete;
  WholeStepGraph& operator=(const WholeStepGraph&) = delete;

  /// The step for `x` and `targets` (padded to the run's capacity): eager, captured then replayed, or
  /// replayed, as the policy decides. The items returned are overwritten by the next replay.
  at::Tensor run(const at::Tensor& x, const GroupedTargets& targets, bool autocast,
                 at::ScalarType autocast_dtype, const Body& body);

  const GraphCapturePolicy& policy() const;
  /// Whether this object can capture at all (asked for, and CUDA compiled in).
  bool capturing() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb::cuda
