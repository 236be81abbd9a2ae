// NMS-free post-processing of an end-to-end head (YOLO26's one-to-one branches): each object has at most one
// confident anchor, so detections are simply the best-scoring (anchor, class) pairs.
// Thread rules: pure functions; safe to call from several threads on different tensors.
#pragma once
#include <ATen/core/Tensor.h>

#include <vector>

namespace ywb::eval {

/// `pred`: [N, 4 + nc, A] decoded one-to-one output (cx, cy, w, h in pixels, then per-class scores), any
/// float dtype and device. Per image: the top min(max_det, A) anchors by their best class score, then the top
/// min(max_det, A) (anchor, class) pairs among those anchors' scores, highest first; rows with score <= conf
/// are dropped. Returns per image a float [k, 6] tensor (x1, y1, x2, y2, score, class) on pred's device: the
/// same layout as nonMaxSuppression(). `anchors`, when given, gets per image the anchor (column of pred)
/// of each row, int64 [k] on pred's device, as nonMaxSuppression() gives them.
std::vector<at::Tensor> end2endDetections(const at::Tensor& pred, double conf = 0.001, int max_det = 300,
                                          std::vector<at::Tensor>* anchors = nullptr);

/// end2endDetections() before its conf cut, as one tensor: [N, min(max_det, A), 6], every row kept (what an
/// exported end-to-end model outputs). `anchors`, when given, gets each row's anchor, int64 [N, k].
at::Tensor end2endTopK(const at::Tensor& pred, int max_det = 300, at::Tensor* anchors = nullptr);

/// The detections of an exported end-to-end graph's output `rows` ([N, k, 6], x1, y1, x2, y2, score, class,
/// highest score first, as end2endDetections() computes them before its conf cut): per image the rows with
/// score > conf among the first max_det, as a float [m, 6] tensor, as Ultralytics reads such an output.
std::vector<at::Tensor> endToEndRows(const at::Tensor& rows, double conf = 0.001, int max_det = 300);

}  // namespace ywb::eval
