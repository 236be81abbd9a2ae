// Test-time augmentation (Ultralytics' `augment=True` for predict and val): the letterboxed input runs
// through the model three times, at scales 1, 0.83 and 0.67 of its size, the 0.83 pass mirrored left-right.
// Each pass's boxes are mapped back to the input's pixels; the full-size pass loses its coarsest level's
// anchors and the smallest pass its finest level's (the objects those levels see worst at that scale);
// the passes' anchors, concatenated, go to NMS as one prediction. Plain functions; thread-safe.
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <vector>

namespace ywb::model {

/// One pass of test-time augmentation.
struct AugmentPass {
  double scale = 1;      ///< of the input's height and width
  bool flip_lr = false;  ///< the input mirrored left-right before scaling
};

/// The passes, in the order their anchors are concatenated: {1, -}, {0.83, mirrored}, {0.67, -}.
const std::vector<AugmentPass>& augmentPasses();

/// The grey of the padding around a scaled input (ImageNet's mean, 0.447 of full scale).
constexpr double kAugmentPadValue = 0.447;

/// x [N, C, H, W] resized by `ratio` to floor(H ratio) x floor(W ratio) (bilinear, half-pixel centres),
/// then padded at the bottom and the right with kAugmentPadValue up to multiples of `stride`
/// (ceil(H ratio / stride) stride, the same for W). Ratio 1 returns x itself.
at::Tensor scaleImage(const at::Tensor& x, double ratio, int64_t stride);

/// The test-time augmented prediction of x [N, 3, H, W] (H and W multiples of the largest stride):
/// [N, 4 + nc, A'] with boxes xywh in x's pixels, as `predict` gives one pass ([N, 4 + nc, A] for its
/// input, the levels of `strides` one after another, finest first). `full`, when defined, is predict(x)
/// already computed (the full-size pass is then not run again). Throws ywb::Error when a pass's anchor
/// count is not the one its input size and the strides give.
at::Tensor augmentedPrediction(const at::Tensor& x, const std::vector<int64_t>& strides,
                               const std::function<at::Tensor(const at::Tensor&)>& predict,
                               const at::Tensor& full = {});

}  // namespace ywb::model
