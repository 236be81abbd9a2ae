// Per-step time split of a training step for `ywb bench train`. Profiling waits for the device at every
// segment boundary (that is the only way to attribute asynchronous GPU work to a segment), so it is used
// by the benchmark only; a normal run has no profiler and no such waits.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/Device.h>

#include <array>
#include <chrono>
#include <vector>

namespace ywb {

enum class StepSegment { DataWait, Transfer, Forward, Loss, Backward, Optimizer, Ema, Log, Count };

/// Short names of the segments, in enum order ("data_wait", "h2d", ...).
const char* stepSegmentName(StepSegment s);

class StepProfiler {
 public:
  static constexpr int kSegments = int(StepSegment::Count);
  using Split = std::array<double, kSegments>;  ///< seconds per segment

  explicit StepProfiler(at::Device device) : device_(device) {}

  /// Starts a step that waited `data_wait_s` for its batch.
  void beginStep(double data_wait_s);
  /// Ends the current segment (waits for the device first).
  void mark(StepSegment s);
  /// Ends the step: `images` trained in it.
  void endStep(int64_t images);

  const std::vector<Split>& steps() const { return steps_; }
  const std::vector<int64_t>& images() const { return images_; }

 private:
  void sync() const;
  at::Device device_;
  Split current_{};
  std::chrono::steady_clock::time_point last_{};
  std::vector<Split> steps_;
  std::vector<int64_t> images_;
};

}  // namespace ywb
