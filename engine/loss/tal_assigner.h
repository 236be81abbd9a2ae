// Task-aligned assignment of ground-truth boxes to anchors (TOOD, as used by YOLOv8): candidates are anchors
// whose centre lies inside a GT box; among them the top-k by score^alpha * CIoU^beta are positives; an anchor
// claimed by several GTs keeps the one it overlaps most. Two rules of Ultralytics 8.4 are options: its
// small-box candidate rule and the one-to-one branch's second top-k (see TalOptions); a third option computes
// the same assignment with fixed shapes, for a step captured in a CUDA graph. Runs without autograd.
// Thread rules: const after construction; operator() is reentrant.
#pragma once
#include <ATen/ATen.h>

namespace ywb::loss {

struct TalOptions {
  int64_t topk = 10;
  int64_t nc = 80;
  double alpha = 0.5;  ///< exponent of the class score in the alignment metric
  double beta = 6.0;   ///< exponent of the IoU
  double eps = 1e-9;
  /// After each anchor keeps one GT, each GT keeps only its `topk2` best-aligned positives (8.4's one-to-one
  /// branch: 1, so each object has one anchor to train the NMS-free output); 0 keeps them all.
  int64_t topk2 = 0;
  /// 8.4's small-box candidate rule: when picking candidate anchors, a GT side shorter than `small_side`
  /// pixels counts as `small_side_to` pixels, about the box centre, so a box smaller than the finest stride
  /// still contains anchor centres. 0 turns it off (Ultralytics 8.3). The IoUs and targets use the real box.
  double small_side = 0;
  double small_side_to = 0;
  /// Graph-ready (issue 33): the same assignment with no data-dependent shape and no host read, so that a
  /// CUDA graph can capture it: CIoU of every (GT, anchor) pair kept where the pair is a candidate (the
  /// default computes the candidate pairs only, found with nonzero), and the several-GTs rule applied to
  /// every anchor at once (argmax over the GTs, taken where more than one claims it; the default visits those
  /// anchors, a data-dependent count). Costs [B,M,A] CIoU temporaries (docs/PERFORMANCE.md).
  bool fixed_shapes = false;
};

struct Assignment {
  at::Tensor labels;    ///< [B,A] long, class of the assigned GT (0 for background anchors)
  at::Tensor bboxes;    ///< [B,A,4] xyxy of the assigned GT, in the units of the inputs
  at::Tensor scores;    ///< [B,A,nc] soft targets: one-hot * normalised alignment metric; 0 for background
  at::Tensor fg_mask;   ///< [B,A] bool, anchors that got a GT
  at::Tensor gt_index;  ///< [B,A] long, index of the assigned GT within its image
};

class TaskAlignedAssigner {
 public:
  explicit TaskAlignedAssigner(TalOptions options = {}) : opt_(options) {}

  /// pd_scores [B,A,nc] probabilities; pd_bboxes [B,A,4] xyxy; anchors [A,2] (same units as the boxes);
  /// gt_labels [B,M,1]; gt_bboxes [B,M,4] xyxy; mask_gt [B,M,1] (1 for real GTs, 0 for padding).
  Assignment operator()(const at::Tensor& pd_scores, const at::Tensor& pd_bboxes, const at::Tensor& anchors,
                        const at::Tensor& gt_labels, const at::Tensor& gt_bboxes,
                        const at::Tensor& mask_gt) const;

  /// [B,M,A] bool: anchor centre strictly inside the GT box (every side distance > eps).
  static at::Tensor candidatesInGts(const at::Tensor& anchors, const at::Tensor& gt_bboxes,
                                    double eps = 1e-9);

  /// xyxy boxes [...,4] with each side shorter than `below` set to `to`, about the box centre (the box goes
  /// through centre/size and back, as the 8.4 rule computes it, so every box is rounded the same way).
  static at::Tensor widenSmallBoxes(const at::Tensor& xyxy, double below, double to);

  const TalOptions& options() const { return opt_; }

 private:
  TalOptions opt_;
};

}  // namespace ywb::loss
