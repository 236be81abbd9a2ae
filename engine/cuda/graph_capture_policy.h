// When to capture a CUDA graph of the training step, when to replay it and when to drop it: the
// bookkeeping of GraphedModel, kept free of CUDA so it is tested on the CPU. A graph is valid for one
// input shape (and dtype, autocast, memory format). A shape is captured once it has been seen on
// `warmup_steps` consecutive eager steps (cuDNN's autotuner and LibTorch's lazy initialisation must have run
// before a capture: they synchronise, which a capture forbids). Another shape for a step or two (the
// short last batch of an epoch) runs eagerly and keeps the graph; a shape that stays replaces it. After
// `max_captures` captures the shapes are taken to keep changing (multi-scale, rectangular batches) and
// graphs are turned off, as they are after a failed capture; note() says why.
// Thread rules: not thread-safe; the trainer thread owns it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb::cuda {

/// What a graph depends on besides the model's parameters.
struct GraphKey {
  std::vector<int64_t> sizes;  ///< input [N, C, H, W]
  int dtype = 0;               ///< input scalar type (as an int)
  bool autocast = false;
  int autocast_dtype = 0;
  bool channels_last = false;
  bool operator==(const GraphKey& o) const {
    return sizes == o.sizes && dtype == o.dtype && autocast == o.autocast &&
           autocast_dtype == o.autocast_dtype && channels_last == o.channels_last;
  }
  bool operator!=(const GraphKey& o) const { return !(*this == o); }
  std::string str() const;
};

enum class GraphAction {
  Eager,    ///< run the step eagerly
  Capture,  ///< capture the graph for this key (dropping a graph held before), then replay it
  Replay    ///< replay the graph held
};

struct GraphPolicyOptions {
  int warmup_steps = 3;  ///< consecutive eager steps of a shape before it is captured
  int max_captures = 4;  ///< captures allowed in total before graphs are turned off
};

class GraphCapturePolicy {
 public:
  explicit GraphCapturePolicy(GraphPolicyOptions o = {}) : opt_(o) {}

  /// The action for a step whose input has `key`. After Capture, call captured() or captureFailed().
  GraphAction decide(const GraphKey& key);
  void captured() { has_graph_ = true; }
  /// Turns graphs off for the rest of the run, with `why` as the note.
  void captureFailed(const std::string& why);

  bool hasGraph() const { return has_graph_; }
  bool disabled() const { return disabled_; }
  const std::string& note() const { return note_; }
  int64_t captures() const { return captures_; }
  int64_t replays() const { return replays_; }
  int64_t drops() const { return drops_; }
  int64_t eagerSteps() const { return eager_; }

 private:
  GraphPolicyOptions opt_;
  GraphKey graph_key_, candidate_;
  int candidate_steps_ = 0;
  bool has_graph_ = false, disabled_ = false;
  std::string note_;
  int64_t captures_ = 0, replays_ = 0, drops_ = 0, eager_ = 0;
};

}  // namespace ywb::cuda
