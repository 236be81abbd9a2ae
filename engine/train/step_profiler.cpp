#include "train/step_profiler.h"

#include <torch/cuda.h>

namespace ywb {

const char* stepSegmentName(StepSegment s) {
  static const char* const names[] = {"data_wait", "h2d",       "forward", "loss",
                                      "backward",  "optimizer", "ema",     "log_sync"};
  return names[int(s)];
}

void StepProfiler::sync() const {
  if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
}

void StepProfiler::beginStep(double data_wait_s) {
  current_.fill(0.0);
  current_[size_t(StepSegment::DataWait)] = data_wait_s;
  sync();
  last_ = std::chrono::steady_clock::now();
}

void StepProfiler::mark(StepSegment s) {
  sync();
  const auto now = std::chrono::steady_clock::now();
  current_[size_t(s)] += std::chrono::duration<double>(now - last_).count();
  last_ = now;
}

void StepProfiler::endStep(int64_t images) {
  steps_.push_back(current_);
  images_.push_back(images);
}

}  // namespace ywb
