#include "cuda/cuda_runtime.h"

#include <ATen/Context.h>

#include "core/torch_compat.h"

#if YW_WITH_CUDA
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace ywb::cuda {

bool compiledWithCuda() {
  return YW_WITH_CUDA != 0;
}

bool setCudnnBenchmark(bool on) {
#if YW_WITH_CUDA
  at::globalContext().setBenchmarkCuDNN(on);
  return true;
#else
  (void)on;
  return false;
#endif
}

bool cudnnBenchmark() {
#if YW_WITH_CUDA
  return at::globalContext().benchmarkCuDNN();
#else
  return false;
#endif
}

std::optional<AllocatorStats> allocatorStats(int device, std::string* why) {
#if YW_WITH_CUDA
  const int n = int(c10::cuda::device_count());
  if (device < 0 || device >= n) {
    if (why)
      *why = "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(n) + " present)";
    return std::nullopt;
  }
  // A device this process has not used has no context and an uninitialised allocator (asking it would
  // index an empty table): nothing of it is in use.
  if (!at::detail::getCUDAHooks().hasPrimaryContext(static_cast<c10::DeviceIndex>(device)))
    return AllocatorStats{};
  namespace alloc = c10::cuda::CUDACachingAllocator;
#if YWB_TORCH_VERSION_NUMBER >= 20400
  // The context comes before the allocator's tables during LibTorch's lazy CUDA initialisation: a monitor
  // thread sampling in between must not read them.
  if (!alloc::get() || !alloc::get()->initialized()) return AllocatorStats{};
#endif
  const auto s = alloc::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  constexpr size_t kAggregate = 0;  // StatType::AGGREGATE in every LibTorch version (small + large pools)
  AllocatorStats r;
  r.allocated = s.allocated_bytes[kAggregate].current;
  r.reserved = s.reserved_bytes[kAggregate].current;
  r.peak_allocated = s.allocated_bytes[kAggregate].peak;
  r.peak_reserved = s.reserved_bytes[kAggregate].peak;
  r.alloc_retries = s.num_alloc_retries;
  r.ooms = s.num_ooms;
  return r;
#else
  (void)device;
  if (why) *why = "this engine was built without CUDA (Debian's LibTorch is CPU-only)";
  return std::nullopt;
#endif
}

void resetPeakStats(int device) {
#if YW_WITH_CUDA
  if (device >= 0 && device < int(c10::cuda::device_count()) &&
      at::detail::getCUDAHooks().hasPrimaryContext(static_cast<c10::DeviceIndex>(device))) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
  }
#else
  (void)device;
#endif
}

void emptyCache() {
#if YW_WITH_CUDA
  c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

}  // namespace ywb::cuda
