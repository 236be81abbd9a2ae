// Epoch index plans: PyTorch DistributedSampler semantics and Ultralytics rectangular batch shapes.
// Thread rules: pure functions.
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <vector>

namespace ywb {

/// Ultralytics' RANK in a one-process run: `int(os.getenv("RANK", -1))`, set only by a DDP launcher. Its
/// seeds add it: init_seeds(seed + 1 + RANK) before the model is built and for the augmentation generators,
/// the training loader's generator 6148914691236517205 + RANK.
constexpr int kUltralyticsOneProcessRank = -1;

/// The indices rank `rank` of `world` visits: a permutation of [0, n) seeded by (seed, epoch) when `shuffle`
/// (else `order` or 0..n-1), padded by wrapping around to a multiple of `world`, then every world-th element
/// from `rank`. Every rank gets ceil(n / world) indices. `order` (optional) replaces 0..n-1 as the base
/// order.
std::vector<size_t> distributedIndices(size_t n, int rank, int world, bool shuffle, uint64_t seed, int epoch,
                                       const std::vector<size_t>& order = {});

/// The order Ultralytics' single-process training loader visits in epoch `epoch` (0-based): PyTorch's
/// RandomSampler on the loader generator that Ultralytics seeds with 6148914691236517205 + RANK (RANK -1 in
/// one process, so 6148914691236517204), so the order does not depend on the run's seed. That generator
/// gives, in turn: the int64 base seed each new iterator draws, then per pass the permutation used and one
/// more that RandomSampler draws and drops when the pass ends. At `reset_epoch` (where Ultralytics rebuilds
/// its iterator because Mosaic closes; -1: never) the old iterator's worker prefetch has already drawn that
/// epoch's permutation and the new iterator draws a base seed before its own. LibTorch's CPU generator and
/// randperm are PyTorch's, so on the same torch version these are Ultralytics' indices. O(epoch * n): the
/// passes are replayed (resume needs no state). `previous` (optional) receives epoch - 1's order from the
/// same replay (empty for epoch 0).
std::vector<size_t> ultralyticsTrainOrder(size_t n, int epoch, int reset_epoch,
                                          std::vector<size_t>* previous = nullptr);

/// The same replay, kept whole: the order of every epoch 0..epoch and, per epoch, the base seed of the
/// loader iterator that serves it and the epoch that iterator started at (0, or `reset_epoch` after it).
/// PyTorch seeds worker w of an iterator with base seed + w (data/ultralytics_draws.h).
struct UltralyticsLoaderReplay {
  std::vector<std::vector<size_t>> orders;
  std::vector<int64_t> base_seeds;
  std::vector<int> iterator_start;
};
/// `prefetching` false: Ultralytics with workers=0 (no worker processes), whose rebuild draws neither the
/// old pass's dropped permutation nor a prefetched one.
UltralyticsLoaderReplay ultralyticsLoaderReplay(size_t n, int epoch, int reset_epoch,
                                                bool prefetching = true);

/// Ultralytics' `pad` for rectangular batch shapes: half a stride for validation, none for training batches
/// (rect=true).
inline double rectBatchPad(bool training) {
  return training ? 0.0 : 0.5;
}
/// Ultralytics' rectangular batch shape (w, h) for images with aspect ratios h/w in `aspects`: the long side
/// is imgsz, the short side fits the most extreme aspect, both rounded up to a stride multiple with `pad`
/// strides (validation's by default).
cv::Size rectBatchShape(const std::vector<double>& aspects, int imgsz, int stride,
                        double pad = rectBatchPad(false));

}  // namespace ywb
