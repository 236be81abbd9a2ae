// What the CUDA graph captures share (graphed_model.cpp, whole_step_graph.cpp): the key of a step's input,
// and starting and abandoning a capture. Include only from sources listed with ywb_cuda_sources()
// (cmake/YwbCuda.cmake), where YW_WITH_CUDA is defined. Thread rules: free functions; a capture belongs to
// the calling thread.
#pragma once
#include <ATen/ATen.h>

#include "core/torch_compat.h"
#include "cuda/graph_capture_policy.h"

#include <functional>

#if YW_WITH_CUDA
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

namespace ywb::cuda {

/// What a graph of a step with input `x` depends on besides the parameters (GraphKey).
inline GraphKey graphKeyOf(const at::Tensor& x, bool autocast, at::ScalarType dt) {
  GraphKey k;
  k.sizes = x.sizes().vec();
  k.dtype = int(x.scalar_type());
  k.autocast = autocast;
  k.autocast_dtype = autocast ? int(dt) : 0;
  k.channels_last = x.dim() == 4 && x.is_contiguous(at::MemoryFormat::ChannelsLast) && !x.is_contiguous();
  return k;
}

#if YW_WITH_CUDA
// Captures in the thread-local mode where LibTorch offers it (2.x): in the default global mode a CUDA call
// that is not allowed during a capture fails in any thread, and the loader's threads allocate pinned host
// memory (cudaHostAlloc) while the training thread captures.
inline void beginCapture(at::cuda::CUDAGraph& graph, at::cuda::MempoolId_t pool) {
#if YWB_TORCH_VERSION_NUMBER >= 20000
  graph.capture_begin(pool, cudaStreamCaptureModeThreadLocal);
#else
  graph.capture_begin(pool);
#endif
}

// A capture that fails part way (an allocation inside it that needs a synchronising free, say: AutoBatch with
// graphs on the H100) leaves its stream capturing, and in the thread-local mode every later forbidden call of
// this thread fails too, the eager fallback's included. Ends the capture, drops what it recorded and clears
// the error it left, so that the caller can go on eagerly.
inline void abandonCapture(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial) cudaGraphDestroy(partial);
  }
  (void)cudaGetLastError();
}

// Runs `record` (clones of the static inputs, then beginCapture ... capture_end) on a side stream of device
// `dev` that starts after the work enqueued so far, with autocast's cache of low-precision weight copies off
// (they must not outlive the capture's memory pool); the device's current stream then waits for it. Should
// `record` throw, a capture it left open is abandoned first.
inline void recordOnSideStream(c10::DeviceIndex dev, const std::function<void()>& record) {
  c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(dev);
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, dev);
  at::cuda::CUDAEvent before;
  before.record(compute);
  before.block(side);
  {
    const c10::cuda::CUDAStreamGuard guard(side);
    const bool cache = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false);
    try {
      record();
    } catch (...) {
      abandonCapture(side.stream());
      at::autocast::set_autocast_cache_enabled(cache);
      throw;
    }
    at::autocast::set_autocast_cache_enabled(cache);
  }
  at::cuda::CUDAEvent after;
  after.record(side);
  after.block(compute);
}
#endif

}  // namespace ywb::cuda
