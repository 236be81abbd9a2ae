#include "data/sampler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Functions.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace ywb {

std::vector<size_t> distributedIndices(size_t n, int rank, int world, bool shuffle, uint64_t seed, int epoch,
                                       const std::vector<size_t>& order) {
  if (world < 1 || rank < 0 || rank >= world) fail("invalid rank ", rank, " for world size ", world);
  if (n == 0) return {};
  std::vector<size_t> idx = order;
  if (idx.empty()) {
    idx.resize(n);
    for (size_t i = 0; i < n; ++i) idx[i] = i;
  }
  if (shuffle) {
    // Fisher-Yates with the engine's portable Rng: identical on every rank and every platform.
    Rng rng(mixSeed(seed, uint64_t(epoch), 0x5348554646ull));
    for (size_t i = n - 1; i > 0; --i) std::swap(idx[i], idx[size_t(rng.uniformInt(0, int64_t(i)))]);
  }
  const size_t per_rank = (n + size_t(world) - 1) / size_t(world);
  const size_t total = per_rank * size_t(world);
  for (size_t i = n; i < total; ++i) idx.push_back(idx[(i - n) % n]);  // pad by wrapping around
  std::vector<size_t> mine;
  mine.reserve(per_rank);
  for (size_t i = size_t(rank); i < total; i += size_t(world)) mine.push_back(idx[i]);
  return mine;
}

UltralyticsLoaderReplay ultralyticsLoaderReplay(size_t n, int epoch, int reset_epoch, bool prefetching) {
  UltralyticsLoaderReplay r;
  if (n == 0 || epoch < 0) return r;
  const auto indices = [n](const at::Tensor& t) {
    const int64_t* p = t.data_ptr<int64_t>();
    return std::vector<size_t>(p, p + n);
  };
  at::Generator g =
      at::make_generator<at::CPUGeneratorImpl>(uint64_t(6148914691236517205ll + kUltralyticsOneProcessRank));
  const auto base_seed = [&g] { return at::empty({}, at::kLong).random_(g).item<int64_t>(); };
  const auto permutation = [&g, n] { return at::randperm(int64_t(n), g, at::kLong); };
  int64_t seed = base_seed();
  int start = 0;
  for (int e = 0; e <= epoch; ++e) {
    if (e == reset_epoch) {
      if (prefetching) permutation();  // prefetched by the old iterator's workers, never used
      seed = base_seed();
      start = e;
    }
    r.orders.push_back(indices(permutation()));
    r.base_seeds.push_back(seed);
    r.iterator_start.push_back(start);
    // Drawn and dropped as the pass ends: with workers as soon as they prefetch on, without them when the
    // next pass of the same iterator starts.
    if (e < epoch && (prefetching || e + 1 != reset_epoch)) permutation();
  }
  return r;
}

std::vector<size_t> ultralyticsTrainOrder(size_t n, int epoch, int reset_epoch,
                                          std::vector<size_t>* previous) {
  if (previous) previous->clear();
  if (n == 0) return {};
  UltralyticsLoaderReplay r = ultralyticsLoaderReplay(n, epoch, reset_epoch);
  if (previous && epoch > 0) *previous = std::move(r.orders[size_t(epoch) - 1]);
  return std::move(r.orders.back());
}

cv::Size rectBatchShape(const std::vector<double>& aspects, int imgsz, int stride, double pad) {
  if (aspects.empty()) return {imgsz, imgsz};
  const double mini = *std::min_element(aspects.begin(), aspects.end());
  const double maxi = *std::max_element(aspects.begin(), aspects.end());
  double sh = 1, sw = 1;  // (h, w) as fractions of imgsz
  if (maxi < 1) {
    sh = maxi;
  } else if (mini > 1) {
    sw = 1 / mini;
  }
  const int h = int(std::ceil(sh * imgsz / stride + pad)) * stride;
  const int w = int(std::ceil(sw * imgsz / stride + pad)) * stride;
  return {w, h};
}

}  // namespace ywb
