// Ultralytics' augmentation random numbers, replayed. Its training loader (PyTorch DataLoader, `workers`
// processes) builds every sample inside a worker process from that process's global Python `random` and
// NumPy generators, which PyTorch and Ultralytics' seed_worker seed with (iterator base seed + worker id)
// mod 2^32; batch k of an iterator goes to worker k mod workers. Per sample, in Ultralytics' order (its
// v8_transforms + Format), Python draws: Mosaic's p test, its three partners (random.choices from that
// worker's buffer of recently loaded images) and centre (y, then x), RandomPerspective's eight values,
// MixUp's and CutMix's p tests, the vertical and horizontal flip tests and Format's BGR test; NumPy draws the
// three HSV gains. Every count is fixed while MixUp, CutMix and copy-paste are off (their defaults), so the
// draws of each sample follow from the order alone: the same numbers Ultralytics' run used, whatever our
// thread count. With MixUp or CutMix on, a sample that mixes consumes more than is replayed and the stream is
// approximate. Thread rules: pure functions.
#pragma once
#include <cstddef>
#include <vector>

#include "data/random_perspective.h"
#include "data/sampler.h"
#include "ywb/augment.h"

namespace ywb {

/// One training sample's random choices as Ultralytics' loader process draws them.
struct SampleDraws {
  bool mosaic = false;
  size_t partners[3] = {0, 0, 0};  ///< Mosaic's tiles 1-3 (top right, bottom left, bottom right)
  int xc = 0, yc = 0;              ///< Mosaic centre on the 2s x 2s canvas
  PerspectiveDraws perspective;
  bool mixup = false;   ///< MixUp's p test passed (the rest of MixUp is not replayed)
  bool cutmix = false;  ///< CutMix's p test passed (the rest of CutMix is not replayed)
  bool flip_ud = false, flip_lr = false;
  bool bgr = false;           ///< Format's BGR test kept the channels as B, G, R (U(0, 1) <= bgr)
  double hsv[3] = {0, 0, 0};  ///< r = U(-1, 1) * (hsv_h, hsv_s, hsv_v)
};

struct UltralyticsStreamOptions {
  /// Ultralytics' loader processes; 0 = none: every sample is built in the training process, from the
  /// generators its trainer seeded with seed (init_seeds(seed + 1 + RANK), RANK -1), and each validation
  /// draws one more Python number per image (Format's BGR test) between epochs.
  int workers = 2;
  uint64_t seed = 0;      ///< the run's seed (workers = 0)
  size_t val_images = 0;  ///< validation images per epoch (workers = 0)
  size_t batch = 16;      ///< per-process batch
  size_t buffer = 128;    ///< Mosaic buffer capacity, RecentImages::capacityFor(images, batch)
  int imgsz = 640;
  bool multi_image = true;  ///< Mosaic/MixUp allowed in this iterator's epochs (false after close_mosaic)
};

/// The draws of every position of epoch `epoch`'s order in `replay` (ultralyticsLoaderReplay), replaying
/// each worker from the start of that epoch's iterator.
std::vector<SampleDraws> ultralyticsDraws(const UltralyticsLoaderReplay& replay, int epoch,
                                          const UltralyticsStreamOptions& o, const AugmentParams& hyp);

}  // namespace ywb
