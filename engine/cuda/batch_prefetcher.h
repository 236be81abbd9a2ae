// Copies the next batch to the device while the current step runs: batch k+1 goes from (pinned) host memory
// into a recycled device buffer on the copy stream while the compute stream works on batch k. Events order
// the two (the step waits for its batch's copy; a buffer is overwritten only after the step that read it),
// so the host never blocks on the device. With fixed shapes the image buffers alternate between `slots`
// addresses, which is also what a captured CUDA graph needs.
// Thread rules: the trainer thread calls everything; the source is called on that thread too.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/copy_stream.h"
#include "data/loader.h"

namespace ywb::cuda {

struct PrefetchStats {
  int64_t batches = 0;            ///< batches handed out
  int64_t buffers_allocated = 0;  ///< image buffers allocated (a new shape, or the first use of a slot)
  int64_t buffers_reused = 0;     ///< copies into a recycled image buffer
};

class BatchPrefetcher {
 public:
  /// `source` yields host batches (DataLoader::next); `slots` >= 2 device image buffers are recycled.
  using Source = std::function<bool(Batch&)>;
  BatchPrefetcher(Source source, std::unique_ptr<CopyStream> stream, int slots = 2);

  /// Begins an epoch (after the loader's startEpoch): forgets a batch in flight and starts copying the
  /// first batch. As with next(), the batch returned before may be overwritten from now on.
  void start();
  /// The next batch, images and targets on the stream's device, ready for compute work enqueued after this
  /// call; starts the copy of the batch after it. false at the end of the epoch. The tensors of the batch
  /// returned before may be overwritten once this is called again: copy what you keep.
  bool next(Batch& out);

  PrefetchStats stats() const { return stats_; }
  at::Device device() const { return stream_->device(); }

 private:
  struct Slot {
    at::Tensor images;
    std::shared_ptr<CopyEvent> released;  ///< compute event after the last step that read the buffer
  };
  struct InFlight {
    Batch batch;  ///< images/targets already the device tensors
    std::shared_ptr<CopyEvent> ready;
    int slot = 0;
  };
  void fetch();

  Source source_;
  std::unique_ptr<CopyStream> stream_;
  std::vector<Slot> slots_;
  std::optional<InFlight> in_flight_;
  int next_slot_ = 0;
  int handed_slot_ = -1;
  PrefetchStats stats_;
};

}  // namespace ywb::cuda
