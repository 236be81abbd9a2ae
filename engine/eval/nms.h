// Class-aware batched non-maximum suppression on decoded predictions. Thread rules: reentrant.
#pragma once
#include <ATen/ATen.h>

#include <vector>

namespace ywb {

/// pred [N, 4+nc, A] (xywh pixels, class scores) -> per image [k, 6] float: x1, y1, x2, y2, score, class.
/// Exact greedy NMS in descending score order (ties keep the lower anchor index first), class-aware unless
/// `agnostic`, at most `max_det` boxes, at most `max_nms` candidates considered per image.
std::vector<at::Tensor> nonMaxSuppression(const at::Tensor& pred, double conf = 0.001, double iou = 0.7,
                                          int max_det = 300, bool agnostic = false, int max_nms = 30000);

}  // namespace ywb
