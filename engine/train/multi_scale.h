// Multi-scale training (`multi_scale`, Ultralytics 8.4's float form): each training batch, once on the device
// and divided by 255, is resized as a whole to a size drawn for its step. The size is an integer drawn
// uniformly from [max(stride, int(imgsz x (1 - ms))), int(imgsz x (1 + ms) + stride)) (half-open), floored to
// a multiple of the model's largest stride; the batch is scaled by size / max(H, W) with bilinear
// interpolation (align_corners false) to sides rounded up to multiples of the stride. Labels are normalised,
// so they stay. The draw depends on (seed, step) alone, so a resumed or rolled-back run draws what the
// uninterrupted run drew, and every rank of a distributed run trains the step at the same size. Thread rules:
// a plain value type; const methods are reentrant.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>

namespace ywb {

class MultiScale {
 public:
  /// `range`: the multi_scale argument (0: off); `stride`: the model's largest stride (at least 32, as
  /// Ultralytics takes it); `seed`: the run's seed.
  MultiScale(int imgsz, double range, int stride, uint64_t seed);

  bool on() const { return range_ > 0; }
  /// The half-open interval the raw size is drawn from: [low, high).
  int64_t low() const;
  int64_t high() const;
  /// The size drawn for global step `step` (a multiple of the stride); imgsz when off.
  int sizeFor(int64_t step) const;
  /// The largest batch side a step can get: ceil(imgsz x (1 + range) / stride) x stride (what AutoBatch
  /// sizes for); imgsz when off.
  int maxSize() const;
  /// `x` [N, C, H, W] resized for step `step` (x itself when off or when the scale factor is 1).
  at::Tensor apply(const at::Tensor& x, int64_t step) const;
  /// The resize of `x` to a drawn size `size`: sides ceil(side x size / max(H, W) / stride) x stride.
  at::Tensor resize(const at::Tensor& x, int size) const;

 private:
  int imgsz_;
  double range_;
  int stride_;
  uint64_t seed_;
};

}  // namespace ywb
