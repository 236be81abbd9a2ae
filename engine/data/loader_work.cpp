// DataLoader's work (data/loader_impl.h): planning an epoch (order, batch shapes), recycling batch buffers,
// handing out tasks, and building and filing samples in the workers.
#include <algorithm>

#include "core/error.h"
#include "core/rng.h"
#include "data/epoch_order.h"
#include "data/loader_impl.h"
#include "data/sampler.h"

namespace ywb {

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

void DataLoader::Impl::plan(int ep, bool multi, int reset) {
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
      for (size_t p = k * b; p < std::min(total, (k + 1) * b); ++p)
        ar.push_back(split->images[order[p]].aspect());
      shapes[k] = rectBatchShape(ar, opt.imgsz, opt.stride, rectBatchPad(opt.augment));
    }
  }
  epoch = ep;
  multi_image = multi;
  next_task = consumed = 0;
  jobs.clear();
}

at::Tensor DataLoader::Impl::acquire(const std::vector<int64_t>& sizes) {
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

void DataLoader::Impl::replan(std::unique_lock<std::mutex>& lk, int ep, bool multi, int reset) {
  started = false;  // workers must not take tasks of the old plan while it is replaced
  ++generation;
  cv_idle.wait(lk, [&] { return in_flight == 0; });
  plan(ep, multi, reset);
  started = true;
  cv_work.notify_all();
}

DataLoader::Impl::Task DataLoader::Impl::take() {
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

void DataLoader::Impl::run(Task t, std::unique_lock<std::mutex>& lk) {
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
    error = std::string("loading ") + (t.index < split->images.size() ? split->images[t.index].image : "?") +
            ": " + e.what();
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

void DataLoader::Impl::workerLoop() {
  std::unique_lock<std::mutex> lk(m);
  for (;;) {
    cv_work.wait(lk, [&] { return stop || (started && canTake()); });
    if (stop) return;
    run(take(), lk);
  }
}

}  // namespace ywb
