#include "dist/grad_reducer.h"

#include "core/error.h"

namespace ywb {

GradReducer::GradReducer(DistContext& ctx, const std::vector<at::Tensor>& params, size_t first_bucket_bytes,
                         size_t bucket_bytes)
    : ctx_(ctx) {
  size_t cap = first_bucket_bytes, bytes = 0;
  at::ScalarType type = at::kFloat;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const at::Tensor& p = *it;
    if (!p.requires_grad()) continue;
    const size_t nbytes = size_t(p.numel()) * p.element_size();
    if (buckets_.empty() || bytes + nbytes > cap || p.scalar_type() != type) {
      if (!buckets_.empty()) cap = bucket_bytes;
      buckets_.emplace_back();
      bytes = 0;
      type = p.scalar_type();
    }
    Slot s;
    s.param = p;
    s.bucket = buckets_.size() - 1;
    s.offset = int64_t(buckets_.back().size);
    buckets_.back().size += size_t(p.numel());
    bytes += nbytes;
    slots_.push_back(s);
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const Slot* any = nullptr;
    for (const auto& s : slots_) {
      if (s.bucket == b) any = &s;
    }
    buckets_[b].flat = at::zeros({int64_t(buckets_[b].size)}, any->param.options().requires_grad(false));
    buckets_[b].pending = 0;
  }
  for (const auto& s : slots_) ++buckets_[s.bucket].pending;
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].hook = slots_[i].param.register_hook([this, i](const at::Tensor& g) { return onGrad(i, g); });
  }
}

GradReducer::~GradReducer() {
  for (auto& s : slots_) {
    try {
      s.param.remove_hook(s.hook);
    } catch (...) {
      // The parameter may already be gone with its module; nothing to undo then.
    }
  }
}

at::Tensor GradReducer::onGrad(size_t i, const at::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& s = slots_[i];
  Bucket& b = buckets_[s.bucket];
  if (!s.ready) {
    s.ready = true;
    b.flat.narrow(0, s.offset, s.param.numel()).copy_(grad.detach().reshape({-1}));
    if (--b.pending == 0) {
      const size_t before = next_launch_;
      launchReady(phase_);
      launched_now_ += next_launch_ - before;
    }
  } else {
    // A second gradient for the same parameter in one backward (not expected for leaf parameters):
    // accumulate it into the bucket; it is only valid while the bucket has not started.
    if (b.launched) fail("gradient of a parameter arrived after its bucket's all-reduce started");
    b.flat.narrow(0, s.offset, s.param.numel()).add_(grad.detach().reshape({-1}));
  }
  // The averaged gradient is added in finish(); autograd accumulates zeros meanwhile.
  return at::zeros_like(grad);
}

void GradReducer::launchReady(const std::string& phase) {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].pending == 0) {
    Bucket& b = buckets_[next_launch_];
    b.wait = ctx_.allreduceAsync(b.flat, phase + " (bucket " + std::to_string(next_launch_) + ")");
    b.launched = true;
    ++next_launch_;
  }
}

void GradReducer::finish(const std::string& phase) {
  std::unique_lock<std::mutex> lock(mu_);
  launched_early_ = launched_now_;
  launched_now_ = 0;
  // Parameters without a gradient this step contribute zeros (the same decision on every rank because
  // the model and its graph are the same).
  for (auto& s : slots_) {
    if (s.ready) continue;
    Bucket& b = buckets_[s.bucket];
    b.flat.narrow(0, s.offset, s.param.numel()).zero_();
    s.ready = true;
    --b.pending;
  }
  launchReady(phase);
  std::vector<DistContext::Waiter> waits;
  for (auto& b : buckets_) waits.push_back(b.wait);
  lock.unlock();
  for (auto& w : waits) {
    if (w) w();
  }
  lock.lock();
  const double inv = 1.0 / double(ctx_.world());
  at::NoGradGuard no_grad;
  for (auto& s : slots_) {
    Bucket& b = buckets_[s.bucket];
    at::Tensor avg = b.flat.narrow(0, s.offset, s.param.numel()).view(s.param.sizes()).mul(inv);
    at::Tensor& g = s.param.mutable_grad();
    if (!g.defined()) {
      g = avg;
    } else {
      g.add_(avg);
    }
  }
  for (auto& s : slots_) {
    s.ready = false;
    ++buckets_[s.bucket].pending;
  }
  for (auto& b : buckets_) {
    b.launched = false;
    b.wait = nullptr;
  }
  next_launch_ = 0;
}

}  // namespace ywb
