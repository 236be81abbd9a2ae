// The threaded training/validation data loader: a pool of worker threads fills a bounded queue of batches
// (uint8 NCHW RGB images + [M, 6] targets), in order, deterministically.
// Thread rules: one consumer thread calls startEpoch()/next()/setMultiImageAugment(); workers are internal.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/grouped_targets.h"
#include "data/sample.h"
#include "data/scanned_split.h"
#include "ywb/augment.h"

namespace ywb {

struct LoaderOptions {
  int imgsz = 640;
  int batch = 16;
  int workers = 0;      ///< worker threads; 0 = load in the thread that calls next() (PyTorch semantics)
  bool augment = true;  ///< Mosaic/perspective/MixUp/HSV/flips (training) or plain letterbox (validation)
  /// Rectangular batches in aspect-sorted order, no shuffle, no Mosaic, MixUp or CutMix. Validation (no
  /// augment): letterboxed, batch shapes padded by half a stride. Training (`rect=true`, augment): the
  /// perspective, HSV and flips at the batch's shape, unpadded; both as Ultralytics.
  bool rect = false;
  /// New permutation every epoch: on one rank Ultralytics' own order (ultralyticsTrainOrder: not keyed by
  /// seed, as in Ultralytics), across ranks one keyed by (seed, epoch) that every rank shares.
  bool shuffle = true;
  uint64_t seed = 0;
  int rank = 0, world = 1;  ///< DistributedSampler sharding
  bool pin_memory = false;  ///< page-locked batch memory when CUDA is available
  bool cache_ram = false;   ///< decode once into RAM (refused with a note when it would not fit)
  AugmentParams hyp;
  int stride = 32;         ///< model stride, for rect batch shapes
  bool drop_last = false;  ///< drop this rank's last incomplete batch
  int prefetch = 0;        ///< batches prepared ahead (0 = max(2, workers))
  /// Decode JPEG exactly as OpenCV's imread at full size, then a linear resize, as Ultralytics does; false
  /// allows DCT scaling for sources at least 2x larger than imgsz (same pixels otherwise; see loadImage()).
  bool exact_decode = false;
  /// Mosaic partners from the recently loaded images (Ultralytics' buffer, data/recent_images.h); false draws
  /// them from the whole split.
  bool recent_partners = true;
  /// On one rank with a shuffled, augmented, square-batch loader: replay the augmentation random numbers of
  /// this many Ultralytics loader processes (data/ultralytics_draws.h; its reference run used 2), so a run
  /// sees the samples Ultralytics' run saw; 0 = Ultralytics without worker processes (its CPU default),
  /// which also needs `val_images`. -1 = the engine's own stream keyed by (seed, epoch, image). Either way
  /// the result does not depend on `workers`.
  int ultralytics_workers = -1;
  size_t val_images = 0;  ///< validation images per epoch (ultralytics_workers = 0)
  /// Reuse decoded images (data/decoded_buffer.h), bounded by `decoded_buffer_bytes` (0 = min(1 GiB, a
  /// quarter of the available memory)); same pixels as decoding. Training with Mosaic keeps the partner
  /// window; a plain (validation) loader keeps the whole split when it fits, so later epochs decode nothing.
  bool decoded_buffer = true;
  size_t decoded_buffer_bytes = 0;
};

struct Batch {
  at::Tensor images;   ///< uint8 [N, 3, H, W], RGB
  at::Tensor targets;  ///< float [M, 6]: image index in batch, class, cx, cy, w, h normalised to W, H
  GroupedTargets
      grouped;  ///< the same boxes grouped per image and padded (for the loss, built here on the host)
  std::vector<std::string> paths;
  std::vector<ImageMeta> meta;  ///< original size, letterbox ratio and pad, for mapping predictions back
  double wait_seconds = 0;      ///< how long next() waited for this batch
  int epoch = 0;
  size_t index = 0;  ///< batch index within the epoch
};

/// Cumulative time spent per stage (summed over workers) and sample counts.
struct LoaderStats {
  double decode_s = 0, augment_s = 0, collate_s = 0, wait_s = 0;
  size_t samples = 0, batches = 0, load_errors = 0;
  int64_t buffer_hits = 0, buffer_misses = 0;  ///< decoded-image buffer lookups (training with Mosaic)
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const ScannedSplit> split, const LoaderOptions& options);
  ~DataLoader();  ///< stops and joins the workers, also mid-epoch
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Plans epoch `epoch` (shuffle by seed + epoch) and starts the workers on it; abandons any unfinished
  /// epoch. An epoch already started by prefetchEpoch() with the settings now in force, and not yet read
  /// from, is kept as it is (true): the same plan, its batches already underway.
  bool startEpoch(int epoch);
  /// Starts epoch `epoch` ahead of its time, planned as if setMultiImageAugment(multi_image) and
  /// setOrderResetEpoch(reset_epoch) were in force (they stay as they are): the trainer builds the next
  /// epoch's first batches while it validates. startEpoch(epoch) keeps it when those settings hold then.
  void prefetchEpoch(int epoch, bool multi_image, int reset_epoch);
  /// The same with the settings now in force (the validation loader's: they never change).
  void prefetchEpoch(int epoch);
  /// The next batch of the epoch, in order; false at the end of the epoch. Throws ywb::Error on internal
  /// errors.
  bool next(Batch& batch);
  /// Batches this rank gets per epoch.
  size_t batchesPerEpoch() const;
  /// Samples this rank gets per epoch (ceil(images / world)).
  size_t samplesPerEpoch() const;
  /// Usable images in the split.
  size_t size() const;
  /// Allows or forbids the multi-image augmentations, Mosaic, MixUp and CutMix, from the next startEpoch() on
  /// (close_mosaic forbids them for the last epochs; their probabilities stay hyp.mosaic and hyp.mixup).
  void setMultiImageAugment(bool on);
  /// The epoch where Ultralytics rebuilds its loader (the first close_mosaic epoch; -1: never), which moves
  /// its shuffle order on (ultralyticsTrainOrder); used from the next startEpoch() on.
  void setOrderResetEpoch(int epoch);
  LoaderStats stats() const;
  /// "" when the RAM cache is in use or was not asked for; otherwise why it was refused.
  std::string cacheNote() const;
  /// Seconds spent filling the RAM cache.
  double cacheFillSeconds() const;
  /// Messages of source images that failed to load since the last call (each replaced by grey).
  std::vector<std::string> takeErrors();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Copies an HWC 8-bit image (BGR, or RGB when `rgb`) into a contiguous uint8 [3, H, W] RGB tensor slice.
void collateImage(const cv::Mat& image, bool rgb, at::Tensor dst);

}  // namespace ywb
