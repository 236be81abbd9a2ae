#include "data/loader.h"

#include <chrono>

#include <opencv2/core/utility.hpp>

#include "core/error.h"
#include "data/loader_impl.h"

namespace ywb {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

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
  d.builder = std::make_unique<SampleBuilder>(d.source, options.augment,
                                              options.augment ? options.hyp : AugmentParams::none());
  d.multi_image_next = !options.rect;  // one image per sample in rectangular batches
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
      return d.split->images[a].aspect() < d.split->images[b].aspect();
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
  Impl::Job job = std::move(d.jobs[b]);
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
  impl_->multi_image_next = on && !impl_->opt.rect;
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
