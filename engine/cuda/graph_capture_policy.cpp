#include "cuda/graph_capture_policy.h"

#include <sstream>

namespace ywb::cuda {

std::string GraphKey::str() const {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? "," : "") << sizes[i];
  os << "] dtype " << dtype << (autocast ? " autocast " + std::to_string(autocast_dtype) : "")
     << (channels_last ? " channels_last" : "");
  return os.str();
}

GraphAction GraphCapturePolicy::decide(const GraphKey& key) {
  if (!disabled_ && has_graph_ && key == graph_key_) {
    ++replays_;
    candidate_steps_ = 0;
    return GraphAction::Replay;
  }
  if (disabled_) {
    ++eager_;
    return GraphAction::Eager;
  }
  if (candidate_steps_ > 0 && key == candidate_) {
    ++candidate_steps_;
  } else {
    candidate_ = key;
    candidate_steps_ = 1;
  }
  if (candidate_steps_ <= opt_.warmup_steps) {
    ++eager_;
    return GraphAction::Eager;  // a graph held stays: the odd batch passes, the captured shape comes back
  }
  if (captures_ >= opt_.max_captures) {
    disabled_ = true;
    if (has_graph_) ++drops_;
    has_graph_ = false;
    note_ = "input shapes kept changing (" + std::to_string(captures_) +
            " captures; multi-scale or rectangular batches?): CUDA graphs off, eager steps";
    ++eager_;
    return GraphAction::Eager;
  }
  if (has_graph_) ++drops_;
  has_graph_ = false;
  graph_key_ = key;
  candidate_steps_ = 0;
  ++captures_;
  return GraphAction::Capture;
}

void GraphCapturePolicy::captureFailed(const std::string& why) {
  disabled_ = true;
  has_graph_ = false;
  note_ = "CUDA graph capture failed (" + why + "): eager steps";
}

}  // namespace ywb::cuda
