// Epoch index plans: PyTorch DistributedSampler semantics and Ultralytics rectangular batch shapes.
// Thread rules: pure functions.
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <vector>

namespace ywb {

/// The indices rank `rank` of `world` visits: a permutation of [0, n) seeded by (seed, epoch) when `shuffle`
/// (else `order` or 0..n-1), padded by wrapping around to a multiple of `world`, then every world-th element
/// from `rank`. Every rank gets ceil(n / world) indices. `order` (optional) replaces 0..n-1 as the base
/// order.
std::vector<size_t> distributedIndices(size_t n, int rank, int world, bool shuffle, uint64_t seed, int epoch,
                                       const std::vector<size_t>& order = {});

/// Ultralytics' rectangular batch shape (w, h) for images with aspect ratios h/w in `aspects`: the long side
/// is imgsz, the short side fits the most extreme aspect, both rounded up to a stride multiple with `pad`
/// strides.
cv::Size rectBatchShape(const std::vector<double>& aspects, int imgsz, int stride, double pad = 0.5);

}  // namespace ywb
