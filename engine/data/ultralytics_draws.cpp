#include "data/ultralytics_draws.h"

#include <cmath>

#include "core/error.h"
#include "core/py_random.h"
#include "data/color_flip.h"

namespace ywb {
namespace {

// One Ultralytics loader process: its two generators and its dataset copy's Mosaic buffer.
struct Worker {
  Mt19937 py, np;
  std::vector<size_t> buffer;  // oldest first, as Python's list
  std::vector<char> buffered;  // per image: in `buffer` (its decoded image is kept)
  Worker(uint64_t py_seed, uint32_t np_seed, size_t n)
      : py(Mt19937::python(py_seed)), np(Mt19937::numpy(np_seed)), buffered(n, 0) {}

  // BaseDataset.load_image: an image not held is decoded and appended; the oldest leaves at capacity.
  void load(size_t image, size_t capacity) {
    if (buffered[image]) return;
    buffer.push_back(image);
    buffered[image] = 1;
    if (buffer.size() > 1 && buffer.size() >= capacity) {
      buffered[buffer.front()] = 0;
      buffer.erase(buffer.begin());
    }
  }

  SampleDraws sample(size_t image, const UltralyticsStreamOptions& o, const AugmentParams& hyp, bool multi) {
    load(image, o.buffer);
    SampleDraws d;
    const double mosaic_p = multi ? hyp.mosaic : 0.0;
    d.mosaic = !(py.uniform(0, 1) > mosaic_p);  // BaseMixTransform: skip when U(0, 1) > p
    if (d.mosaic) {
      const double n = double(buffer.size());
      for (size_t& p : d.partners) p = buffer[size_t(std::floor(py.random() * n))];  // random.choices
      const int s = o.imgsz, border = s / 2 + s % 2;  // Ultralytics' border is -s // 2 (floor division)
      d.yc = int(py.uniform(border, 2 * s - border));
      d.xc = int(py.uniform(border, 2 * s - border));
    }
    d.perspective = drawPerspectiveParams(hyp, py);
    d.mixup = !(py.uniform(0, 1) > (multi ? hyp.mixup : 0.0));
    d.cutmix = !(py.uniform(0, 1) > (multi ? hyp.cutmix : 0.0));
    // Albumentations draws nothing when its package is absent (a plain Ultralytics install).
    if (hsvEnabled(hyp)) {
      const double gains[3] = {hyp.hsv_h, hyp.hsv_s, hyp.hsv_v};
      for (int k = 0; k < 3; ++k) d.hsv[k] = np.uniform(-1, 1) * gains[k];
    }
    d.flip_ud = py.random() < hyp.flipud;
    d.flip_lr = py.random() < hyp.fliplr;
    d.bgr = !(py.uniform(0, 1) > hyp.bgr);  // Format reverses the channels to R, G, B when U(0, 1) > bgr
    return d;
  }
};

}  // namespace

std::vector<SampleDraws> ultralyticsDraws(const UltralyticsLoaderReplay& replay, int epoch,
                                          const UltralyticsStreamOptions& o, const AugmentParams& hyp) {
  if (epoch < 0 || size_t(epoch) >= replay.orders.size())
    fail("ultralyticsDraws: epoch ", epoch, " outside the replayed ", replay.orders.size());
  if (o.workers < 0 || o.batch < 1) fail("ultralyticsDraws: needs a batch and workers >= 0");
  const size_t n = replay.orders[size_t(epoch)].size();
  const int start = o.workers ? replay.iterator_start[size_t(epoch)] : 0;
  const uint64_t base = uint64_t(replay.base_seeds[size_t(epoch)]);
  std::vector<Worker> workers;
  // Without loader processes the samples draw from the generators init_seeds(seed + 1 + RANK) seeded.
  const uint64_t one_process = uint64_t(int64_t(o.seed) + 1 + kUltralyticsOneProcessRank);
  if (o.workers == 0) workers.emplace_back(one_process, uint32_t(one_process), n);
  for (int w = 0; w < o.workers; ++w) {
    const uint32_t s = uint32_t((base + uint64_t(w)) & 0xffffffffu);
    workers.emplace_back(s, s, n);
  }
  const size_t nw = workers.size();
  const size_t per_epoch = (n + o.batch - 1) / o.batch;  // batches per pass (drop_last false)
  std::vector<SampleDraws> out;
  for (int e = start; e <= epoch; ++e) {
    const std::vector<size_t>& order = replay.orders[size_t(e)];
    // Epochs of an earlier iterator (workers = 0 only) ran before Mosaic closed.
    const bool multi =
        replay.iterator_start[size_t(e)] == replay.iterator_start[size_t(epoch)] ? o.multi_image : true;
    if (e == epoch) out.reserve(order.size());
    for (size_t p = 0; p < order.size(); ++p) {
      const size_t k = size_t(e - start) * per_epoch + p / o.batch;  // the iterator's batch number
      SampleDraws d = workers[k % nw].sample(order[p], o, hyp, multi);
      if (e == epoch) out.push_back(d);
    }
    if (o.workers == 0 && e < epoch) workers[0].py.discard(2 * o.val_images);  // the epoch's validation
  }
  return out;
}

}  // namespace ywb
