// Non-maximum suppression of YOLOv8 head outputs, Ultralytics semantics (conf > threshold, at most
// max_nms candidates by score, class-aware greedy NMS suppressing IoU > threshold, max_det kept).
// Thread rules: pure functions; safe to call from several threads on different tensors.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "ywb/metrics.h"

namespace ywb::eval {

/// `pred`: [N, 4 + nc, A] decoded head output (cx, cy, w, h in pixels, then per-class scores), any float
/// dtype, CPU or CUDA. Returns per image a float [k, 6] tensor (x1, y1, x2, y2, score, class) on pred's
/// device, highest score first, k <= max_det. Candidates: score > conf (the best class per anchor, or every
/// class above conf with multi_label). Class-aware: boxes of different classes never suppress each other
/// (the same as Ultralytics' coordinate offset, without its float rounding on large offsets); agnostic
/// ignores classes. Ties in score keep the lower anchor index first (stable). Exact greedy NMS, class by
/// class, with early exit at max_det; on CUDA the candidates are chosen and ordered on the device and only
/// they are copied to the host. `anchors`, when given, gets per image the anchor (column of pred) each kept
/// row came from, int64 [k] on the CPU (Ultralytics' return_idxs: what the tracker's ReID features index).
std::vector<at::Tensor> nonMaxSuppression(const at::Tensor& pred, double conf = 0.001, double iou = 0.7,
                                          int max_det = 300, bool agnostic = false, int max_nms = 30000,
                                          bool multi_label = false,
                                          std::vector<at::Tensor>* anchors = nullptr);

/// Converts one image's NMS output [k, 6] (any device) to the boxes DetectionMetrics takes.
std::vector<DetBox> detBoxesFromTensor(const at::Tensor& dets);

/// The two pipelines behind nonMaxSuppression (same arguments, same results): plain loops over a host copy
/// (used for CPU tensors; LibTorch 1.13's CPU reductions over 80 classes cost more than the whole loop), and
/// tensor operations over the whole batch on pred's device with the greedy pass on a host copy of the
/// candidates (used for CUDA: a few synchronisations per batch; runs on CPU too, for tests).
std::vector<at::Tensor> nmsHostLoop(const at::Tensor& pred, double conf, double iou, int max_det,
                                    bool agnostic, int max_nms, bool multi_label,
                                    std::vector<at::Tensor>* anchors = nullptr);
std::vector<at::Tensor> nmsTensorOps(const at::Tensor& pred, double conf, double iou, int max_det,
                                     bool agnostic, int max_nms, bool multi_label,
                                     std::vector<at::Tensor>* anchors = nullptr);

/// Greedy NMS over boxes already in priority order. `boxes` [n, 4] x1y1x2y2 float, `classes` [n] int64
/// (ignored when agnostic). Returns the kept row indices (int64, CPU), at most max_keep of them.
at::Tensor greedyNmsCpu(const at::Tensor& boxes, const at::Tensor& classes, double iou, int64_t max_keep,
                        bool agnostic);

}  // namespace ywb::eval
