// The CPU stand-in for a CUDA side stream (see copy_stream.h).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "cuda/copy_stream.h"

namespace ywb::cuda {
namespace {

class FlagEvent : public CopyEvent {
 public:
  explicit FlagEvent(bool done) : done_(done) {}
  bool done() const override {
    std::lock_guard<std::mutex> lock(m_);
    return done_;
  }
  void set() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
  }
  void wait() const {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return done_; });
  }

 private:
  mutable std::mutex m_;
  mutable std::condition_variable cv_;
  bool done_;
};

class ThreadCopyStream : public CopyStream {
 public:
  explicit ThreadCopyStream(int delay_ms) : delay_ms_(delay_ms), worker_([this] { run(); }) {}
  ~ThreadCopyStream() override {
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  at::Device device() const override { return at::kCPU; }
  at::Tensor allocate(at::IntArrayRef sizes, at::ScalarType dtype) override {
    return at::empty(sizes, dtype);
  }
  void copy(const at::Tensor& src, const at::Tensor& dst) override {
    push([src, dst, d = delay_ms_] {
      if (d > 0) std::this_thread::sleep_for(std::chrono::milliseconds(d));
      at::Tensor out = dst;
      out.copy_(src);
    });
  }
  std::shared_ptr<CopyEvent> recordCopies() override {
    auto e = std::make_shared<FlagEvent>(false);
    push([e] { e->set(); });
    return e;
  }
  void computeWaits(const std::shared_ptr<CopyEvent>& e) override {
    static_cast<const FlagEvent&>(*e).wait();  // compute is this thread's synchronous work
  }
  std::shared_ptr<CopyEvent> recordCompute() override {
    return std::make_shared<FlagEvent>(true);  // synchronous compute: everything enqueued has run
  }
  void copiesWait(const std::shared_ptr<CopyEvent>& e) override {
    push([e] { static_cast<const FlagEvent&>(*e).wait(); });
  }
  void handToCompute(const at::Tensor&) override {}

 private:
  void push(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(m_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_all();
  }
  void run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return quit_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // quit once drained: pending events still complete
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  int delay_ms_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool quit_ = false;
  std::thread worker_;  // last: starts after the members it uses exist
};

}  // namespace

std::unique_ptr<CopyStream> makeThreadCopyStream(int copy_delay_ms) {
  return std::make_unique<ThreadCopyStream>(copy_delay_ms);
}

}  // namespace ywb::cuda
