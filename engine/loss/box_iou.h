// Box overlap measures used by the assigner and the box loss. Plain functions; thread-safe.
#pragma once
#include <ATen/ATen.h>

namespace ywb::loss {

/// IoU of box1 and box2 (broadcast over leading dimensions, last dimension 4: xyxy, or xywh when `xywh`).
/// With `ciou`, returns Complete-IoU: IoU - (centre distance^2 / enclosing diagonal^2 + v * alpha), where
/// v = 4/pi^2 (atan(w2/h2) - atan(w1/h1))^2 and alpha = v / (v - IoU + 1) is treated as a constant.
/// eps guards divisions exactly where Ultralytics puts it (heights, union, diagonal). Returns [..., 1].
at::Tensor bboxIoU(const at::Tensor& box1, const at::Tensor& box2, bool xywh = false, bool ciou = false,
                   double eps = 1e-7);

}  // namespace ywb::loss
