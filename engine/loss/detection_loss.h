// YOLOv8 detection loss: task-aligned assignment, CIoU + DFL box losses on positives weighted by their soft
// scores, BCE on all anchors' class logits against the soft scores; each normalised by the sum of target
// scores, scaled by the gains. With reg_max 1 (YOLO26) the box channels are plain distances and an L1 loss
// on image-normalised distances takes DFL's slot. Thread rules: const after construction; operator() is
// reentrant.
#pragma once
#include <ATen/ATen.h>

#include <utility>
#include <vector>

#include "data/grouped_targets.h"
#include "loss/tal_assigner.h"

namespace ywb::loss {

/// Ultralytics' hyperparameter names and defaults.
struct LossGains {
  double box = 7.5;
  double cls = 0.5;
  double dfl = 1.5;  ///< with reg_max 1: the gain of the L1 term in DFL's slot
};

/// Everything one task-aligned loss needs besides the maps and targets.
struct DetectionLossOptions {
  int64_t nc = 80;
  std::vector<int64_t> strides{8, 16, 32};
  int64_t reg_max = 16;  ///< DFL bins per box side; 1: no DFL, the box channels are distances
  LossGains gains;
  int64_t topk = 10;  ///< the assigner's top-k (one-to-one branch: 7)
  int64_t topk2 = 0;  ///< the assigner's second top-k (one-to-one branch: 1); 0: none
  /// Ultralytics 8.4's small-box candidate rule (on for every family since 8.4.0): a GT side under the
  /// finest stride (8 px) counts as the next stride (16 px) when picking candidate anchors. Off replays
  /// Ultralytics 8.3.253, whose loss fixtures (with boxes of 1-7 px in loss-yolov8n-coco-seed1) and
  /// reference training run must stay bit-identical.
  bool small_box_rule = true;
  /// Per-class weights [nc] of the class BCE (`cls_pw`, loss/class_weights.h), on the maps' device; undefined
  /// (the default): unweighted, summed as before, bit for bit.
  at::Tensor class_weights;
  /// Graph-ready (issue 33; not used by the trainer yet): the same loss with no data-dependent shape, branch
  /// or host read, so that a CUDA graph can capture it with the step: the assigner's fixed-shape path
  /// (TalOptions::fixed_shapes), the box, DFL and L1 terms summed over every anchor with background anchors
  /// weighted 0 (the default selects the positives, a data-dependent count), and constants filled on the
  /// device. Pad the targets to a run-wide capacity (padGroupedTargets) so the shapes stay fixed across
  /// batches. Equal to the default within float summation order (tests/engine/test_graph_ready_loss.cpp).
  bool fixed_shapes = false;
};

struct LossResult {
  at::Tensor total;  ///< scalar for backward: (box + cls + dfl) * batch_size, as Ultralytics
  at::Tensor items;  ///< [3] detached: box, cls, dfl (gains applied), for logging
};

class DetectionLoss {
 public:
  /// A model's loss is chosen and configured by loss::ModelLoss (model_loss.h); this is one branch's.
  explicit DetectionLoss(DetectionLossOptions options);

  /// feats: the model's raw maps [N, 4*reg_max+nc, H/s, W/s]; targets [M,6] rows (image index, class, cx,
  /// cy, w, h) with the box normalised to the input image. Any M >= 0, boxes anywhere (clipped by the
  /// assignment). Reads the rows back to the host once to group them (validation, tests).
  LossResult operator()(const std::vector<at::Tensor>& feats, const at::Tensor& targets) const;
  /// The same loss from targets the loader grouped on the host (groupTargets), already on the maps' device:
  /// no device-to-host read (the training step).
  LossResult operator()(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const;
  /// The three terms box, cls, dfl (gains applied) as a [3] tensor that keeps its graph: operator()'s items
  /// before detaching (the end-to-end loss weighs two branches' terms).
  at::Tensor terms(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const;
  /// The assignment terms() trains towards (for tests and diagnostics).
  Assignment assignment(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const;

  const LossGains& gains() const { return opt_.gains; }
  const DetectionLossOptions& options() const { return opt_; }

 private:
  struct Prepared;  // the maps in float and flattened, decoded boxes, anchors, targets in pixels
  Prepared prepare(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const;
  Assignment assign(const Prepared& p) const;
  /// fixed_shapes: the box and DFL/L1 sums over every anchor (before division by the score sum).
  std::pair<at::Tensor, at::Tensor> fixedBoxTerms(const Prepared& p, const Assignment& as,
                                                  const at::Tensor& target_bboxes) const;

  DetectionLossOptions opt_;
  TaskAlignedAssigner assigner_;
};

/// Targets [M,6] -> per-image padded GT tensors: labels [B,Mmax,1], xyxy boxes in pixels [B,Mmax,4] (scaled
/// by img_w/img_h), mask [B,Mmax,1]. Throws ywb::Error for an image index outside [0, B) or a class outside
/// [0, nc).
struct PaddedTargets {
  at::Tensor labels, bboxes, mask;
};
PaddedTargets padTargets(const at::Tensor& targets, int64_t batch, int64_t nc, double img_w, double img_h);
/// Grouped targets (on any device) -> the same padded tensors: boxes scaled to pixels, then xywh -> xyxy.
/// `device_constants`: the scale [w, h, w, h] is filled on the targets' device rather than copied from the
/// host (a host-to-device copy cannot be captured in a CUDA graph); the same values.
PaddedTargets scaleTargets(const GroupedTargets& grouped, double img_w, double img_h,
                           bool device_constants = false);

}  // namespace ywb::loss
