#include "cuda/batch_prefetcher.h"

#include <algorithm>

#include "core/error.h"

namespace ywb::cuda {

BatchPrefetcher::BatchPrefetcher(Source source, std::unique_ptr<CopyStream> stream, int slots)
    : source_(std::move(source)), stream_(std::move(stream)), slots_(size_t(std::max(2, slots))) {
  if (!stream_) fail("BatchPrefetcher: no copy stream");
}

void BatchPrefetcher::start() {
  // The batch handed out last is done with once the compute work enqueued so far has run.
  if (handed_slot_ >= 0) slots_[size_t(handed_slot_)].released = stream_->recordCompute();
  handed_slot_ = -1;
  // A batch still in flight from the last epoch: its buffer is released once that copy is done.
  if (in_flight_) slots_[size_t(in_flight_->slot)].released = in_flight_->ready;
  in_flight_.reset();
  fetch();
}

void BatchPrefetcher::fetch() {
  Batch host;
  if (!source_(host)) return;
  const int s = next_slot_;
  next_slot_ = (next_slot_ + 1) % int(slots_.size());
  Slot& slot = slots_[size_t(s)];
  if (slot.released) stream_->copiesWait(slot.released);  // the step that read this buffer is done first
  const at::Tensor& src = host.images;
  if (slot.images.defined() && slot.images.sizes() == src.sizes() &&
      slot.images.scalar_type() == src.scalar_type()) {
    ++stats_.buffers_reused;
  } else {
    slot.images = stream_->allocate(src.sizes(), src.scalar_type());
    ++stats_.buffers_allocated;
  }
  stream_->copy(src, slot.images);
  // Targets change size every batch ([M, 6]) and are small: a new tensor each time.
  at::Tensor targets = stream_->allocate(host.targets.sizes(), host.targets.scalar_type());
  stream_->copy(host.targets, targets);
  InFlight f;
  f.ready = stream_->recordCopies();
  f.slot = s;
  f.batch = std::move(host);
  f.batch.images = slot.images;
  f.batch.targets = targets;
  in_flight_ = std::move(f);
}

bool BatchPrefetcher::next(Batch& out) {
  // Everything enqueued so far read the previous batch's buffer: that buffer is free after it.
  if (handed_slot_ >= 0) slots_[size_t(handed_slot_)].released = stream_->recordCompute();
  handed_slot_ = -1;
  if (!in_flight_) return false;
  stream_->computeWaits(in_flight_->ready);
  out = std::move(in_flight_->batch);
  stream_->handToCompute(out.images);
  stream_->handToCompute(out.targets);
  handed_slot_ = in_flight_->slot;
  in_flight_.reset();
  ++stats_.batches;
  fetch();
  return true;
}

}  // namespace ywb::cuda
