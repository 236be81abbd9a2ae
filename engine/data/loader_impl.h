// DataLoader's inside (data/loader.h), shared by its two sources: loader.cpp (set-up and the consumer's
// calls) and loader_work.cpp (epoch planning, batch buffers, and the workers' loop).
// Thread rules: every member below `m` is guarded by it; the workers build samples without it (run()).
#pragma once
#include <ATen/ATen.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>

#include "data/image_source.h"
#include "data/loader.h"
#include "data/recent_images.h"
#include "data/sample_builder.h"
#include "data/ultralytics_draws.h"

namespace ywb {

struct DataLoader::Impl {
  // A batch being filled: one slot per sample, ready when every slot is.
  struct Job {
    at::Tensor images;
    std::vector<std::vector<float>> rows;  // per slot: class, cx, cy, w, h repeated
    std::vector<std::string> paths;
    std::vector<ImageMeta> meta;
    int remaining = 0;
    bool ready = false;
    std::string error;
  };
  // One sample to build, with the plan it belongs to.
  struct Task {
    size_t pos = 0, batch = 0, slot = 0, index = 0;
    uint64_t generation = 0;
    int epoch = 0;
    bool multi_image = true;  // Mosaic, MixUp and CutMix allowed (false once close_mosaic closes them)
    cv::Size shape;
    at::Tensor dst;
  };

  LoaderOptions opt;
  std::shared_ptr<const ScannedSplit> split;
  std::shared_ptr<ImageSource> source;
  std::unique_ptr<SampleBuilder> builder;
  std::string cache_note;
  double cache_fill_s = 0;
  std::vector<size_t> rect_order;        // aspect-sorted base order (rect mode)
  std::unique_ptr<RecentImages> recent;  // Mosaic's partner buffer (augmented training only)
  std::vector<SampleDraws> draws;        // per position: Ultralytics' draws (empty: our own stream)

  mutable std::mutex m;
  std::condition_variable cv_work, cv_ready, cv_idle;
  std::vector<std::thread> threads;
  bool stop = false;
  bool started = false;
  bool multi_image_next = true;
  int reset_epoch = -1;
  // The current epoch's plan.
  uint64_t generation = 0;
  int epoch = 0;
  bool multi_image = true;
  std::vector<size_t> order;
  std::vector<cv::Size> shapes;  // per batch
  size_t nbatches = 0, total = 0, next_task = 0, consumed = 0;
  int in_flight = 0;
  std::map<size_t, Job> jobs;
  // An epoch started ahead (prefetchEpoch) and the settings it was planned with; -1: none.
  int ahead_epoch = -1;
  bool ahead_multi = true;
  int ahead_reset = -1;
  LoaderStats stats;
  std::vector<std::string> errors;
  // Batch buffers are recycled once nobody else references their storage: a fresh 20 MB batch costs
  // thousands of page faults. Pinned memory is left to LibTorch's host allocator, which knows when an
  // asynchronous copy to the GPU has finished with a buffer.
  std::vector<at::Tensor> pool;

  size_t depth() const { return size_t(opt.prefetch > 0 ? opt.prefetch : std::max(2, opt.workers)); }
  size_t batchSize(size_t b) const { return std::min(size_t(opt.batch), total - b * size_t(opt.batch)); }
  bool canTake() const { return next_task < total && next_task / size_t(opt.batch) < consumed + depth(); }
  // Copies of a tensor share its TensorImpl; views share only its storage: both counts must be ours alone.
  static bool unshared(const at::Tensor& t) { return t.use_count() == 1 && t.storage().use_count() == 1; }

  /// Epoch `ep`'s plan with Mosaic allowed or not (`multi`) and the order reset at `reset`.
  void plan(int ep, bool multi, int reset);
  /// A batch buffer of `sizes` (uint8): a recycled one when one is free.
  at::Tensor acquire(const std::vector<int64_t>& sizes);
  /// Replaces the plan by epoch `ep`'s (plan()), once no worker is on the old one, and sets the workers on
  /// it.
  void replan(std::unique_lock<std::mutex>& lk, int ep, bool multi, int reset);
  /// Takes the next task; the caller holds the lock.
  Task take();
  /// Builds and collates a task's sample without the lock, then files it under the lock.
  void run(Task t, std::unique_lock<std::mutex>& lk);
  void workerLoop();
};

}  // namespace ywb
