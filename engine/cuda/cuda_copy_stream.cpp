// The CUDA side stream of the batch prefetcher (see copy_stream.h): copies from pinned host memory run on a
// stream from LibTorch's pool while the compute stream trains; CUDA events order the two on the GPU, and
// the host never waits for the device.
#include "cuda/copy_stream.h"

#if YW_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace ywb::cuda {

#if YW_WITH_CUDA
namespace {

class CudaEvent : public CopyEvent {
 public:
  bool done() const override { return event.query(); }
  at::cuda::CUDAEvent event;  // default flags: timing off, the cheapest kind
};

class CudaCopyStream : public CopyStream {
 public:
  explicit CudaCopyStream(at::Device device)
      : device_(device), side_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}
  at::Device device() const override { return device_; }
  at::Tensor allocate(at::IntArrayRef sizes, at::ScalarType dtype) override {
    const c10::cuda::CUDAStreamGuard guard(side_);  // the block belongs to the side stream's pool
    return at::empty(sizes, at::TensorOptions().dtype(dtype).device(device_));
  }
  void copy(const at::Tensor& src, const at::Tensor& dst) override {
    const c10::cuda::CUDAStreamGuard guard(side_);
    at::Tensor out = dst;
    out.copy_(src, /*non_blocking=*/true);  // asynchronous from pinned memory; the host allocator keeps src
  }
  std::shared_ptr<CopyEvent> recordCopies() override {
    auto e = std::make_shared<CudaEvent>();
    e->event.record(side_);
    return e;
  }
  void computeWaits(const std::shared_ptr<CopyEvent>& e) override {
    static_cast<CudaEvent&>(*e).event.block(compute());
  }
  std::shared_ptr<CopyEvent> recordCompute() override {
    auto e = std::make_shared<CudaEvent>();
    e->event.record(compute());
    return e;
  }
  void copiesWait(const std::shared_ptr<CopyEvent>& e) override {
    static_cast<CudaEvent&>(*e).event.block(side_);
  }
  void handToCompute(const at::Tensor& t) override {
    at::Tensor owned = t;
    owned.record_stream(compute());
  }

 private:
  c10::cuda::CUDAStream compute() const { return c10::cuda::getCurrentCUDAStream(device_.index()); }
  at::Device device_;
  c10::cuda::CUDAStream side_;
};

}  // namespace
#endif

std::unique_ptr<CopyStream> makeCudaCopyStream(at::Device device, std::string* why) {
#if YW_WITH_CUDA
  if (device.is_cuda()) {
    if (device.index() < 0) device = at::Device(at::kCUDA, 0);
    return std::make_unique<CudaCopyStream>(device);
  }
  if (why) *why = "device " + device.str() + " is not a CUDA device";
#else
  if (why) *why = "this engine was built without CUDA (device " + device.str() + ")";
#endif
  return nullptr;
}

}  // namespace ywb::cuda
