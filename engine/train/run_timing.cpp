#include "train/run_timing.h"

#include <algorithm>

namespace ywb {

const char* runSegmentName(RunSegment s) {
  switch (s) {
    case RunSegment::Scan:
      return "scan";
    case RunSegment::ModelBuild:
      return "model_build";
    case RunSegment::AmpCheck:
      return "amp_check";
    case RunSegment::DataWait:
      return "data_wait";
    case RunSegment::Step:
      return "step";
    case RunSegment::Ema:
      return "ema";
    case RunSegment::Logging:
      return "logging";
    case RunSegment::ValData:
      return "val_data";
    case RunSegment::ValPreprocess:
      return "val_preprocess";
    case RunSegment::ValInference:
      return "val_inference";
    case RunSegment::ValNms:
      return "val_nms";
    case RunSegment::ValMetrics:
      return "val_metrics";
    case RunSegment::Checkpoint:
      return "checkpoint";
    case RunSegment::Count:
      break;
  }
  return "?";
}

std::vector<TimeShare> RunTiming::split() const {
  std::vector<TimeShare> out;
  double covered = 0;
  for (size_t i = 0; i < seconds_.size(); ++i) {
    out.push_back({runSegmentName(RunSegment(i)), seconds_[i]});
    covered += seconds_[i];
  }
  out.push_back({"between_epochs", std::max(0.0, wall() - covered)});
  return out;
}

}  // namespace ywb
