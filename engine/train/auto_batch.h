// AutoBatch (`batch=-1`): the largest batch whose training step fits a target fraction of the GPU's memory
// (Ultralytics uses 60%), found by profiling a few batch sizes and fitting memory = a + k * batch.
// The search is written against a probe interface so it is tested with a fake device here (no GPU); the
// real probe (auto_batch_step.h) runs the model's training step and reads the GPU through NVML.
// Thread rules: trainer thread only.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ywb {

class AutoBatchProbe {
 public:
  virtual ~AutoBatchProbe() = default;
  virtual int64_t totalBytes() = 0;  ///< the device's memory
  virtual int64_t usedBytes() = 0;   ///< in use now (after the trials so far)
  /// One training step at `batch`; throws ywb::Error mentioning "out of memory" when it fails.
  virtual void trial(int batch) = 0;
};

struct AutoBatchResult {
  int batch = 0;
  bool fallback = false;                         ///< the fit was not usable: the default was taken
  std::vector<std::pair<int, int64_t>> samples;  ///< (batch, used bytes) of successful trials
  int failed_at = 0;                             ///< first batch size that ran out of memory (0: none)
  double intercept = 0, slope = 0;               ///< bytes, bytes per image
  std::string note;                              ///< one line for the log
};

/// Ultralytics' AutoBatch target: 60% of the GPU's memory.
constexpr double kAutoBatchFraction = 0.60;
/// A run with CUDA graphs (`cuda_graphs=true`) keeps the captured step's private memory pool beside the
/// eager allocator's: its peak was 1.83-1.98x the eager one on the H100 (docs/PERFORMANCE.md, both GPU
/// runs), and a batch sized for the eager step ran out of memory inside the capture.
constexpr double kGraphedStepMemoryFactor = 2.0;
/// The fraction of the GPU's memory an eager trial step may predict so that the run fits `target` (the
/// user's batch=0.70, else kAutoBatchFraction): that fraction, divided by kGraphedStepMemoryFactor with CUDA
/// graphs.
double autoBatchFraction(bool cuda_graphs, double target = kAutoBatchFraction);

/// Profiles batch sizes 1, 2, 4, 8, 16 (stopping at the first out-of-memory), fits a line by least squares
/// and returns floor((fraction * total - a) / k), never above a size that failed, within [1, 1024];
/// `fallback` when fewer than two sizes ran, the slope is not positive, or the answer is out of range.
AutoBatchResult chooseBatch(AutoBatchProbe& probe, double fraction = kAutoBatchFraction, int fallback = 16);

}  // namespace ywb
