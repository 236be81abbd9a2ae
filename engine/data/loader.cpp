#include "data/loader.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <opencv2/core/utility.hpp>

#include "core/error.h"
#include "core/rng.h"
#include "data/epoch_order.h"
#include "data/image_source.h"
#include "data/recent_images.h"
#include "data/sample_builder.h"
#include "data/sampler.h"
#include "data/ultralytics_draws.h"

namespace ywb {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Job {
  at::Tensor images;
  std::vector<std::vector<float>> rows;  // per slot: class, cx, cy, w, h repeated
  std::vector<std::string> paths;
  std::vector<ImageMeta> meta;
  int remaining = 0;
  bool ready = false;
  std::string error;
};

struct Task {
  size_t pos = 0, batch = 0, slot = 0, index = 0;
  uint64_t generation = 0;
  int epoch = 0;
  bool multi_image = true;  // Mosaic and MixUp allowed (false once close_mosaic closes them)
  cv::Size shape;
  at::Tensor dst;
};

}  // namespace

void collateImage(const cv::Mat& image, bool rgb, at::Tensor dst) {
  const int h = image.rows, w = image.cols;
  if (dst.size(0) != 3 || dst.size(1) != h || dst.size(2) != w || !dst.is_contiguous()) {
    fail("collate: sample of ", w, "x", h, " does not fit the batch tensor");
  }
  uint8_t* base = dst.data_ptr<uint8_t>();
  cv::Mat r(h, w, CV_8UC1, base), g(h, w, CV_8UC1, base + size_t(h) * w),
      b(h, w, CV_8UC1, base + 2 * size_t(h) * w);
  // cv::split writes into the tensor's planes (sizes match, so nothing is reallocated); it is ~10x faster
  // than mixChannels. BGR input: channel 0 (blue) goes to the last plane.
  cv::Mat planes[3] = {rgb ? r : b, g, rgb ? b : r};
  cv::split(image, planes);
  if (planes[0].data != (rgb ? r.data : b.data)) fail("collate: plane buffers were reallocated");
}

struct DataLoader::Impl {
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

  size_t depth() const { return size_t(opt.prefetch > 0 ? opt.prefetch : std::max(2, opt.workers)); }
  size_t batchSize(size_t b) const { return std::min(size_t(opt.batch), total - b * size_t(opt.batch)); }

  // Epoch `ep`'s plan with Mosaic allowed or not (`multi`) and the order reset at `reset`.
  void plan(int ep, bool multi, int reset) {
    EpochOrder e = epochOrder(opt, split->images.size(), ep, reset, recent != nullptr, multi, rect_order);
    order = std::move(e.order);
    draws = std::move(e.draws);
    if (recent && draws.empty()) recent->plan(e.previous, order);
    const size_t b = size_t(opt.batch);
    nbatches = opt.drop_last ? order.size() / b : (order.size() + b - 1) / b;
    total = std::min(order.size(), nbatches * b);
    shapes.assign(nbatches, cv::Size(opt.imgsz, opt.imgsz));
    if (opt.rect) {
      for (size_t k = 0; k < nbatches; ++k) {
        std::vector<double> ar;
        for (size_t p = k * b; p < std::min(total, (k + 1) * b); ++p) {
          const ImageRecord& r = split->images[order[p]];
          ar.push_back(double(r.height) / r.width);
        }
        shapes[k] = rectBatchShape(ar, opt.imgsz, opt.stride);
      }
    }
    epoch = ep;
    multi_image = multi;
    next_task = consumed = 0;
    jobs.clear();
  }

  // Batch buffers are recycled once nobody else references their storage: a fresh 20 MB batch costs
  // thousands of page faults. Pinned memory is left to LibTorch's host allocator, which knows when an
  // asynchronous copy to the GPU has finished with a buffer.
  std::vector<at::Tensor> pool;

  // Copies of a tensor share its TensorImpl; views share only its storage: both counts must be ours alone.
  static bool unshared(const at::Tensor& t) { return t.use_count() == 1 && t.storage().use_count() == 1; }

  at::Tensor acquire(const std::vector<int64_t>& sizes) {
    if (opt.pin_memory && at::hasCUDA()) {
      return at::empty(sizes, at::TensorOptions().dtype(at::kByte).pinned_memory(true));
    }
    for (auto& t : pool) {
      if (unshared(t) && t.sizes().vec() == sizes) return t;
    }
    at::Tensor t = at::empty(sizes, at::kByte);
    if (pool.size() < depth() + 4) {
      pool.push_back(t);
    } else {
      for (auto& p : pool) {
        if (unshared(p)) {
          p = t;
          break;
        }
      }
    }
    return t;
  }

  // Replaces the plan by epoch `ep`'s (plan()), once no worker is on the old one, and sets the workers on it.
  void replan(std::unique_lock<std::mutex>& lk, int ep, bool multi, int reset) {
    started = false;  // workers must not take tasks of the old plan while it is replaced
    ++generation;
    cv_idle.wait(lk, [&] { return in_flight == 0; });
    plan(ep, multi, reset);
    started = true;
    cv_work.notify_all();
  }

  bool canTake() const { return next_task < total && next_task / size_t(opt.batch) < consumed + depth(); }

  // Takes the next task; the caller holds the lock.
  Task take() {
    Task t;
    t.pos = next_task++;
    t.batch = t.pos / size_t(opt.batch);
    t.slot = t.pos % size_t(opt.batch);
    t.index = order[t.pos];
    t.generation = generation;
    t.epoch = epoch;
    t.multi_image = multi_image;
    t.shape = shapes[t.batch];
    Job& job = jobs[t.batch];
    if (!job.images.defined()) {
      const int64_t n = int64_t(batchSize(t.batch));
      job.images = acquire({n, 3, t.shape.height, t.shape.width});
      job.rows.resize(size_t(n));
      job.paths.resize(size_t(n));
      job.meta.resize(size_t(n));
      job.remaining = int(n);
    }
    t.dst = job.images[int64_t(t.slot)];
    ++in_flight;
    return t;
  }

  // Builds and collates a task's sample without the lock, then files it under the lock.
  void run(Task t, std::unique_lock<std::mutex>& lk) {
    lk.unlock();
    Sample s;
    std::string error;
    double collate_s = 0;
    std::vector<float> rows;
    try {
      s = builder->build(t.index, mixSeed(opt.seed, uint64_t(t.epoch), uint64_t(t.index)), t.multi_image,
                         t.shape, recent && draws.empty() ? recent->window(t.pos) : PartnerPool{},
                         draws.empty() ? nullptr : &draws[t.pos]);
      const double t0 = threadCpuSeconds();
      collateImage(s.image, s.rgb, t.dst);
      const float w = float(s.image.cols), h = float(s.image.rows);
      for (size_t k = 0; k < s.boxes.size(); ++k) {
        const PixelBox& b = s.boxes[k];
        if (k < s.centres.size()) {
          const auto& c = s.centres[k];  // Format normalises by multiplying with 1 / size in float32
          const float iw = float(1.0 / s.image.cols), ih = float(1.0 / s.image.rows);
          rows.insert(rows.end(), {float(b.cls), c[0] * iw, c[1] * ih, c[2] * iw, c[3] * ih});
        } else {
          rows.insert(rows.end(), {float(b.cls), (b.x1 + b.x2) / 2 / w, (b.y1 + b.y2) / 2 / h, b.width() / w,
                                   b.height() / h});
        }
      }
      collate_s = threadCpuSeconds() - t0;
    } catch (const std::exception& e) {
      error = std::string("loading ") +
              (t.index < split->images.size() ? split->images[t.index].image : "?") + ": " + e.what();
    }
    lk.lock();
    --in_flight;
    if (t.generation != generation || stop) {  // the epoch was restarted meanwhile: discard
      cv_idle.notify_all();
      return;
    }
    Job& job = jobs[t.batch];
    job.rows[t.slot] = std::move(rows);
    job.paths[t.slot] = s.path;
    job.meta[t.slot] = s.meta;
    if (!error.empty() && job.error.empty()) job.error = error;
    stats.decode_s += s.decode_s;
    stats.augment_s += s.augment_s;
    stats.collate_s += collate_s;
    ++stats.samples;
    stats.load_errors += s.errors.size();
    for (auto& e : s.errors) {
      if (errors.size() < 1000) errors.push_back(std::move(e));
    }
    if (--job.remaining == 0) {
      job.ready = true;
      cv_ready.notify_all();
    }
    cv_idle.notify_all();
  }

  void workerLoop() {
    std::unique_lock<std::mutex> lk(m);
    for (;;) {
      cv_work.wait(lk, [&] { return stop || (started && canTake()); });
      if (stop) return;
      run(take(), lk);
    }
  }
};

DataLoader::DataLoader(std::shared_ptr<const ScannedSplit> split, const LoaderOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.opt = options;
  d.split = std::move(split);
  if (!d.split) fail("DataLoader: no scanned split");
  if (d.split->images.empty()) fail("DataLoader: split '", d.split->name, "' has no usable images");
  if (options.batch < 1) fail("batch=", options.batch, " must be at least 1");
  if (options.imgsz % options.stride != 0) {
    fail("imgsz=", options.imgsz, " must be a multiple of the model stride ", options.stride);
  }
  if (options.workers < 0) fail("workers=", options.workers, " must be 0 or more");
  d.source = std::make_shared<ImageSource>(d.split, options.imgsz, !options.exact_decode);
  if (options.cache_ram) {
    const double t0 = now();
    d.cache_note = d.source->enableRamCache(std::max(1, options.workers));
    d.cache_fill_s = now() - t0;
  }
  d.builder = std::make_unique<SampleBuilder>(d.source, options.augment && !options.rect,
                                              options.augment ? options.hyp : AugmentParams::none());
  const bool mosaic_window = options.augment && !options.rect && options.recent_partners;
  const size_t window = RecentImages::capacityFor(d.split->images.size(), options.batch);
  if (mosaic_window) d.recent = std::make_unique<RecentImages>(window);
  if (options.decoded_buffer && !d.source->cached()) {
    const size_t budget = options.decoded_buffer_bytes
                              ? options.decoded_buffer_bytes
                              : std::min<size_t>(size_t(1) << 30, availableMemoryBytes() / 4);
    const size_t per_image = size_t(options.imgsz) * size_t(options.imgsz) * 3;
    if (mosaic_window) {
      // Mosaic's partner window plus the samples in flight (prefetched batches and one per worker).
      // (each replayed Ultralytics loader process keeps a window of its own).
      const size_t want = window * size_t(std::max(1, options.ultralytics_workers)) +
                          (d.depth() + 1) * size_t(options.batch) + size_t(options.workers);
      d.source->enableDecodedBuffer(std::min(want, std::max<size_t>(1, budget / per_image)));
    } else if (!options.augment && d.source->cacheBytes() <= budget) {
      // Validation: the whole split when it fits, so later epochs decode nothing (same pixels).
      d.source->enableDecodedBuffer(d.split->images.size());
    }
  }
  if (options.rect) {
    d.rect_order.resize(d.split->images.size());
    for (size_t i = 0; i < d.rect_order.size(); ++i) d.rect_order[i] = i;
    std::stable_sort(d.rect_order.begin(), d.rect_order.end(), [&](size_t a, size_t b) {
      const auto& ra = d.split->images[a];
      const auto& rb = d.split->images[b];
      return double(ra.height) / ra.width < double(rb.height) / rb.width;
    });
  }
  d.plan(0, d.multi_image_next, d.reset_epoch);
  // With worker threads, the parallelism is theirs: OpenCV's own threads inside every worker's resize, warp
  // and decode only contend with them (Ultralytics switches them off too). On an H200's 16 cores with 16
  // workers (fourth GPU run, bench loader, 640-px Mosaic) one OpenCV thread gave 2,154 img/s at 7.4 ms of CPU
  // per image against 1,978 at 8.0 ms; on 2 cores with 2 workers the two are within noise. The setting is
  // OpenCV's, for the whole process: the trainer's other image work runs in these workers too.
  if (options.workers >= 2 && cv::getNumThreads() != 1) cv::setNumThreads(1);
  for (int i = 0; i < options.workers; ++i) d.threads.emplace_back([&d] { d.workerLoop(); });
}

DataLoader::~DataLoader() {
  {
    std::lock_guard<std::mutex> lk(impl_->m);
    impl_->stop = true;
  }
  impl_->cv_work.notify_all();
  for (auto& t : impl_->threads) t.join();
}

bool DataLoader::startEpoch(int epoch) {
  Impl& d = *impl_;
  std::unique_lock<std::mutex> lk(d.m);
  const bool keep = d.ahead_epoch == epoch && d.consumed == 0 && d.ahead_multi == d.multi_image_next &&
                    d.ahead_reset == d.reset_epoch;
  d.ahead_epoch = -1;
  if (keep) return true;
  d.replan(lk, epoch, d.multi_image_next, d.reset_epoch);
  return false;
}

void DataLoader::prefetchEpoch(int epoch) {
  bool multi = true;
  int reset = -1;
  {
    std::lock_guard<std::mutex> lk(impl_->m);
    multi = impl_->multi_image_next;
    reset = impl_->reset_epoch;
  }
  prefetchEpoch(epoch, multi, reset);
}

void DataLoader::prefetchEpoch(int epoch, bool multi_image, int reset_epoch) {
  Impl& d = *impl_;
  std::unique_lock<std::mutex> lk(d.m);
  d.replan(lk, epoch, multi_image, reset_epoch);
  d.ahead_epoch = epoch;
  d.ahead_multi = multi_image;
  d.ahead_reset = reset_epoch;
}

bool DataLoader::next(Batch& batch) {
  Impl& d = *impl_;
  const double t0 = now();
  std::unique_lock<std::mutex> lk(d.m);
  if (!d.started) {
    d.started = true;
    d.cv_work.notify_all();
  }
  if (d.consumed >= d.nbatches) return false;
  const size_t b = d.consumed;
  if (d.opt.workers == 0) {
    while (d.next_task < d.total && d.next_task / size_t(d.opt.batch) == b) d.run(d.take(), lk);
  }
  d.cv_ready.wait(lk, [&] {
    const auto it = d.jobs.find(b);
    return it != d.jobs.end() && it->second.ready;
  });
  Job job = std::move(d.jobs[b]);
  d.jobs.erase(b);
  ++d.consumed;
  d.cv_work.notify_all();
  const double waited = now() - t0;
  d.stats.wait_s += waited;
  ++d.stats.batches;
  const int ep = d.epoch;
  lk.unlock();
  if (!job.error.empty()) fail(job.error);

  size_t m = 0;
  for (const auto& r : job.rows) m += r.size() / 5;
  at::Tensor targets = at::empty({int64_t(m), 6}, at::kFloat);
  float* p = targets.data_ptr<float>();
  for (size_t i = 0; i < job.rows.size(); ++i) {
    const auto& r = job.rows[i];
    for (size_t k = 0; k + 4 < r.size(); k += 5) {
      *p++ = float(i);
      for (size_t j = 0; j < 5; ++j) *p++ = r[k + j];
    }
  }
  batch.images = job.images;
  batch.grouped = groupTargets(targets, int64_t(job.rows.size()), 0);
  batch.targets = targets;
  batch.paths = std::move(job.paths);
  batch.meta = std::move(job.meta);
  batch.wait_seconds = waited;
  batch.epoch = ep;
  batch.index = b;
  return true;
}

size_t DataLoader::batchesPerEpoch() const {
  std::lock_guard<std::mutex> lk(impl_->m);
  return impl_->nbatches;
}

size_t DataLoader::samplesPerEpoch() const {
  std::lock_guard<std::mutex> lk(impl_->m);
  return impl_->order.size();
}

size_t DataLoader::size() const {
  return impl_->split->images.size();
}

void DataLoader::setMultiImageAugment(bool on) {
  std::lock_guard<std::mutex> lk(impl_->m);
  impl_->multi_image_next = on;
}

void DataLoader::setOrderResetEpoch(int epoch) {
  std::lock_guard<std::mutex> lk(impl_->m);
  impl_->reset_epoch = epoch;
}

LoaderStats DataLoader::stats() const {
  LoaderStats st;
  {
    std::lock_guard<std::mutex> lk(impl_->m);
    st = impl_->stats;
  }
  if (const DecodedBuffer* b = impl_->source->decodedBuffer()) b->stats(&st.buffer_hits, &st.buffer_misses);
  return st;
}

std::string DataLoader::cacheNote() const {
  return impl_->cache_note;
}
double DataLoader::cacheFillSeconds() const {
  return impl_->cache_fill_s;
}

std::vector<std::string> DataLoader::takeErrors() {
  std::lock_guard<std::mutex> lk(impl_->m);
  std::vector<std::string> out;
  out.swap(impl_->errors);
  return out;
}

}  // namespace ywb
