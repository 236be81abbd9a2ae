// Builds one sample: Mosaic-4 + random perspective (as a single warp of only the visible part of the mosaic),
// MixUp, CutMix (data/cut_mix.h), HSV and flips for training; letterbox for validation. Ultralytics semantics
// and hyperparameters. Thread rules: build() is const and safe from many threads; all randomness comes from
// its seed.
#pragma once
#include <cstdint>
#include <memory>

#include "data/image_source.h"
#include "data/recent_images.h"
#include "data/sample.h"
#include "data/ultralytics_draws.h"
#include "ywb/augment.h"

namespace ywb {

class Rng;

/// Flips decided before the warp, applied as part of it.
struct Flips {
  bool ud = false, lr = false;
  cv::Matx33d pixels(cv::Size out) const;  ///< for image warps (pixel-index convention)
  void apply(cv::Mat& img) const;          ///< mirrors an image in place (cv::flip)
  cv::Matx33d boxes(cv::Size out) const;   ///< for box corners (continuous convention)
};

class SampleBuilder {
 public:
  SampleBuilder(std::shared_ptr<const ImageSource> source, bool augment, const AugmentParams& hyp);

  /// The sample for image `index` with all random choices drawn from `seed`. `multi_image` false turns
  /// Mosaic, MixUp and CutMix off (close_mosaic). `target` is the output size (w, h); empty means imgsz x
  /// imgsz. Augmented samples with a non-square target (rect=true training batches) get one image,
  /// letterboxed to the target and warped at that size, with HSV and flips (no Mosaic, MixUp or CutMix).
  /// Mosaic draws its three partners from `partners` (the loader's RecentImages window, as Ultralytics), or
  /// from the whole split when it is empty. `draws` (optional) replaces the seed's choices of Mosaic, its
  /// partners and centre, the perspective, the flips and the HSV gains by Ultralytics' own
  /// (data/ultralytics_draws.h); the seed still draws what `draws` does not hold (MixUp's partner and ratio,
  /// CutMix's region and partner).
  Sample build(size_t index, uint64_t seed, bool multi_image, cv::Size target = {}, PartnerPool partners = {},
               const SampleDraws* draws = nullptr) const;

  const ImageSource& source() const { return *source_; }

  /// The most images whose labels one build() can put in a sample under `hyp`: 1 (letterbox, rect batches,
  /// validation, the close_mosaic epochs); x4 with Mosaic (four tiles; the partners are drawn with
  /// replacement, so one image may fill all four); one more sample's worth each for MixUp (it blends two
  /// samples, each possibly a Mosaic) and CutMix (it pastes a part of another). Clipping and the perspective
  /// warp only drop boxes. (data/target_capacity.h bounds a run on it.)
  static int64_t maxImagesPerSample(const AugmentParams& hyp);

 private:
  // Geometry stage (Mosaic or letterbox, then perspective): BGR image and boxes in output pixels.
  Sample geometry(size_t index, Rng& rng, bool multi_image, const Flips& f, PartnerPool partners,
                  const SampleDraws* draws) const;
  Sample mosaic4(size_t index, Rng& rng, const Flips& f, PartnerPool partners,
                 const SampleDraws* draws) const;
  /// One image letterboxed into `out` (empty: imgsz x imgsz) and warped by the perspective at that size.
  Sample single(size_t index, Rng& rng, const Flips& f, const SampleDraws* draws, cv::Size out = {}) const;
  Sample letterboxed(size_t index, cv::Size target) const;
  /// The image of `index`; `fresh` decodes it from its file even when the decoded-image buffer holds it (a
  /// sample's own image: so a file deleted or damaged after the scan is noticed every epoch).
  cv::Mat fetch(size_t index, Sample& s, bool fresh = false) const;

  std::shared_ptr<const ImageSource> source_;
  bool augment_;
  AugmentParams hyp_;
};

/// Ultralytics' Mosaic-4 placement of tile i (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right) of size
/// `shp` around the centre (xc, yc) of a s2 x s2 canvas: the canvas rectangle it fills and the part of the
/// tile shown there (both the same size).
void mosaicPlacement(int i, int xc, int yc, cv::Size shp, int s2, cv::Rect* placed, cv::Rect* from);

/// Beta(a, a)-distributed draw (MixUp ratio), from the Rng (Marsaglia-Tsang gamma draws).
double betaSymmetric(Rng& rng, double a);

}  // namespace ywb
