// Bucketed gradient averaging overlapped with the backward pass (what DistributedDataParallel's Reducer
// does): a hook on every parameter copies its gradient into a flat bucket as soon as autograd produces
// it; a full bucket starts its all-reduce at once (buckets launch in index order, the same on every
// rank), and finish() waits for them and adds the averaged gradients to `.grad`.
// Thread rules: hooks run on autograd's threads (guarded by a mutex); construct/finish on the trainer thread.
#pragma once
#include <ATen/ATen.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "dist/dist_context.h"

namespace ywb {

class GradReducer {
 public:
  /// Buckets hold parameters in reverse registration order (roughly the order backward produces their
  /// gradients), up to `bucket_bytes` each; the first (last layers') bucket is smaller so communication
  /// starts early. Only parameters that require gradients take part.
  GradReducer(DistContext& ctx, const std::vector<at::Tensor>& params, size_t first_bucket_bytes = 1 << 20,
              size_t bucket_bytes = 25 << 20);
  ~GradReducer();  ///< removes the hooks
  GradReducer(const GradReducer&) = delete;
  GradReducer& operator=(const GradReducer&) = delete;

  /// Call after each backward(): starts buckets whose parameters got no gradient (zeros, the same on every
  /// rank), waits for every bucket, divides by the world size and adds the averages to the gradients.
  void finish(const std::string& phase);
  size_t buckets() const { return buckets_.size(); }
  /// Buckets whose all-reduce started while backward was still running, in the last step.
  size_t launchedDuringBackward() const { return launched_early_; }

 private:
  struct Slot {
    at::Tensor param;
    size_t bucket = 0;
    int64_t offset = 0;
    unsigned hook = 0;
    bool ready = false;
  };
  struct Bucket {
    at::Tensor flat;
    size_t pending = 0, size = 0;
    bool launched = false;
    DistContext::Waiter wait;
  };
  at::Tensor onGrad(size_t slot, const at::Tensor& grad);
  void launchReady(const std::string& phase);

  DistContext& ctx_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  std::mutex mu_;
  size_t next_launch_ = 0;
  size_t launched_now_ = 0, launched_early_ = 0;
  std::string phase_ = "gradient all-reduce";
};

}  // namespace ywb
