#include "model/test_time_augment.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace ywb::model {
namespace {

// Anchors of one level for an h x w input.
int64_t levelAnchors(int64_t h, int64_t w, int64_t stride) {
  return (h / stride) * (w / stride);
}

}  // namespace

const std::vector<AugmentPass>& augmentPasses() {
  static const std::vector<AugmentPass> passes{{1.0, false}, {0.83, true}, {0.67, false}};
  return passes;
}

at::Tensor scaleImage(const at::Tensor& x, double ratio, int64_t stride) {
  if (ratio == 1.0) return x;
  const int64_t h = x.size(2), w = x.size(3);
  // The scaled size is truncated, the padded size rounded up to the stride (both from h * ratio in double).
  const int64_t sh = int64_t(double(h) * ratio), sw = int64_t(double(w) * ratio);
  const int64_t ph = int64_t(std::ceil(double(h) * ratio / double(stride))) * stride;
  const int64_t pw = int64_t(std::ceil(double(w) * ratio / double(stride))) * stride;
  const at::Tensor scaled = at::upsample_bilinear2d(x, {sh, sw}, /*align_corners=*/false);
  return at::constant_pad_nd(scaled, {0, pw - sw, 0, ph - sh}, kAugmentPadValue);
}

at::Tensor augmentedPrediction(const at::Tensor& x, const std::vector<int64_t>& strides,
                               const std::function<at::Tensor(const at::Tensor&)>& predict,
                               const at::Tensor& full) {
  if (strides.empty()) fail("test-time augmentation: the model has no detection levels");
  if (!std::is_sorted(strides.begin(), strides.end()))
    fail("test-time augmentation: the levels' strides must ascend (the finest level's anchors first)");
  const int64_t finest = strides.front(), coarsest = strides.back();
  const int64_t W = x.size(3);
  const auto& passes = augmentPasses();
  std::vector<at::Tensor> kept;
  for (size_t i = 0; i < passes.size(); ++i) {
    const AugmentPass& pass = passes[i];
    const at::Tensor input = scaleImage(pass.flip_lr ? x.flip({3}) : x, pass.scale, coarsest);
    at::Tensor p = (i == 0 && full.defined()) ? full : predict(input);
    const int64_t h = input.size(2), w = input.size(3);
    int64_t anchors = 0;
    for (const int64_t s : strides) anchors += levelAnchors(h, w, s);
    if (p.dim() != 3 || p.size(2) != anchors || p.size(1) < 5)
      fail("test-time augmentation: the ", pass.scale, "x pass gave ", p.sizes(), ", expected [N, 4 + nc, ",
           anchors, "] for a ", h, "x", w, " input");
    // Boxes back to x's pixels: undo the scale (by its nominal ratio), then the mirror (x' = W - x).
    at::Tensor xy = p.narrow(1, 0, 2) / pass.scale;
    if (pass.flip_lr) xy = at::cat({double(W) - xy.narrow(1, 0, 1), xy.narrow(1, 1, 1)}, 1);
    p = at::cat({xy, p.narrow(1, 2, 2) / pass.scale, p.narrow(1, 4, p.size(1) - 4)}, 1);
    if (i == 0) p = p.narrow(2, 0, anchors - levelAnchors(h, w, coarsest));  // large objects: not from here
    if (i + 1 == passes.size()) {
      const int64_t small = levelAnchors(h, w, finest);  // small objects: not from the smallest pass
      p = p.narrow(2, small, anchors - small);
    }
    kept.push_back(p);
  }
  return at::cat(kept, 2);
}

}  // namespace ywb::model
