// Ultralytics' float32 box arithmetic, step by step, for samples that replay Ultralytics' draws
// (`ultralytics_stream`): NumPy keeps labels in float32 and rounds after every operation, so a replay that
// computes in double ends a few units in the last place away, which a training run amplifies (docs/PARITY.md,
// session 13). The ordinary sample path (data/random_perspective.h) keeps its double precision.
#pragma once
#include <array>
#include <opencv2/core.hpp>
#include <vector>

#include "data/sample.h"
#include "data/scanned_split.h"

namespace ywb {

/// A record's labels as pixel corners of its image loaded at `loaded` size: xywh -> xyxy, times the size,
/// times `ratio`, plus the offset (Ultralytics' _update_labels / LetterBox label update, in that order).
std::vector<PixelBox> ultralyticsTileBoxes(const ImageRecord& r, cv::Size loaded, float ratio, int padw,
                                           int padh);

/// RandomPerspective's box update with a float32-valued affine M: the four corners through M in float32, the
/// enclosing box clipped to `out`, kept by Ultralytics' box filter against the input box scaled by `scale`.
std::vector<PixelBox> ultralyticsWarpBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes,
                                           cv::Size out, double scale);

/// RandomFlip's and Format's boxes: centre and size in pixels (float32), centres flipped about the `out`
/// size.
std::vector<std::array<float, 4>> ultralyticsCentreBoxes(const std::vector<PixelBox>& boxes, bool flip_lr,
                                                         bool flip_ud, cv::Size out);

}  // namespace ywb
