// An ordered queue of host-to-device copies that runs beside the compute work, with events that order the
// two queues without blocking the host: the CUDA side stream of the batch prefetcher, and a CPU stand-in
// (a worker thread) that gives the prefetcher the same ordering and recycling rules where no GPU exists.
// Thread rules: one owner thread (the trainer's) calls every method; the stand-in's worker is internal.
#pragma once
#include <ATen/ATen.h>

#include <memory>
#include <string>

namespace ywb::cuda {

/// A point in one of the two queues; done() once everything enqueued before it has run.
class CopyEvent {
 public:
  virtual ~CopyEvent() = default;
  virtual bool done() const = 0;
};

class CopyStream {
 public:
  virtual ~CopyStream() = default;
  /// Where copies land.
  virtual at::Device device() const = 0;
  /// A tensor on device() that belongs to the copy queue (CUDA: allocated on the side stream).
  virtual at::Tensor allocate(at::IntArrayRef sizes, at::ScalarType dtype) = 0;
  /// Enqueues dst.copy_(src) after everything enqueued on the copy queue before it; returns at once. Both
  /// tensors stay referenced until the copy has run.
  virtual void copy(const at::Tensor& src, const at::Tensor& dst) = 0;
  /// An event of the copy queue: done when every copy enqueued so far has run.
  virtual std::shared_ptr<CopyEvent> recordCopies() = 0;
  /// Compute work enqueued after this call runs after `e` (CUDA: the compute stream waits on the GPU, the
  /// host does not block; stand-in: the calling thread blocks, its work being synchronous).
  virtual void computeWaits(const std::shared_ptr<CopyEvent>& e) = 0;
  /// An event of the compute queue: done when the compute work enqueued so far has run.
  virtual std::shared_ptr<CopyEvent> recordCompute() = 0;
  /// Copies enqueued after this call run after `e` (a buffer is not overwritten while compute reads it).
  virtual void copiesWait(const std::shared_ptr<CopyEvent>& e) = 0;
  /// `t` (from allocate()) is now read by the compute queue: freeing it must wait for that work
  /// (CUDA: Tensor::record_stream on the compute stream).
  virtual void handToCompute(const at::Tensor& t) = 0;
};

/// The CPU stand-in: copies run in order on a worker thread; compute is the caller's own (synchronous)
/// work. `copy_delay_ms` slows every copy down, for tests that must see a copy still in flight.
std::unique_ptr<CopyStream> makeThreadCopyStream(int copy_delay_ms = 0);

/// A side stream from LibTorch's pool on CUDA device `device`; null (with `why`) when CUDA is not compiled
/// in or the device is not a CUDA device.
std::unique_ptr<CopyStream> makeCudaCopyStream(at::Device device, std::string* why = nullptr);

}  // namespace ywb::cuda
