// CUDA-only runtime services behind the engine's CUDA switch (YW_WITH_CUDA, cmake/YwbCuda.cmake): cuDNN's
// benchmark mode and the CUDA caching allocator's statistics (the Memory chart, AutoBatch). Without CUDA
// compiled in, each says so instead of failing. Thread rules: free functions, callable from any thread.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ywb::cuda {

/// Whether this engine was compiled with its CUDA code (a CUDA LibTorch was found at build time).
bool compiledWithCuda();

/// Turns cuDNN's autotuner on or off: with fixed input shapes each convolution's fastest algorithm is
/// chosen once, on the first step of every new shape. Returns false when CUDA is not compiled in.
bool setCudnnBenchmark(bool on);

/// Whether cuDNN's autotuner is on (always false where CUDA is not compiled in).
bool cudnnBenchmark();

/// Holds cuDNN's autotuner at `on` for a scope, then restores what it was. One-off passes (the AMP check's
/// single image) would otherwise autotune, at tens of milliseconds per convolution, shapes no step uses.
class CudnnBenchmarkScope {
 public:
  explicit CudnnBenchmarkScope(bool on) : was_(cudnnBenchmark()) { setCudnnBenchmark(on); }
  ~CudnnBenchmarkScope() { setCudnnBenchmark(was_); }
  CudnnBenchmarkScope(const CudnnBenchmarkScope&) = delete;
  CudnnBenchmarkScope& operator=(const CudnnBenchmarkScope&) = delete;

 private:
  bool was_;
};

/// Figures of the CUDA caching allocator for one device, in bytes (aggregate over its small and large
/// pools). `reserved` is what the process holds from the driver (what nvidia-smi shows, minus the
/// context); `allocated` is what live tensors use.
struct AllocatorStats {
  int64_t allocated = 0, reserved = 0;
  int64_t peak_allocated = 0, peak_reserved = 0;
  int64_t alloc_retries = 0;  ///< allocations that had to free cached blocks and retry
  int64_t ooms = 0;           ///< out-of-memory errors raised by the allocator
};

/// The caching allocator's figures for CUDA device `device`; nullopt without CUDA, or when the device
/// does not exist (`why` says which).
std::optional<AllocatorStats> allocatorStats(int device, std::string* why = nullptr);

/// Starts new peaks (peak_allocated, peak_reserved) for `device`; no-op without CUDA.
void resetPeakStats(int device);

/// Returns the allocator's unused cached blocks to the driver (between AutoBatch trials); no-op without CUDA.
void emptyCache();

}  // namespace ywb::cuda
