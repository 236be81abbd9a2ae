// Task-aligned assignment of ground-truth boxes to anchors (TOOD, as used by YOLOv8): candidates are anchors
// whose centre lies inside a GT box; among them the top-k by score^alpha * CIoU^beta are positives; an anchor
// claimed by several GTs keeps the one it overlaps most. Runs without autograd.
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

  const TalOptions& options() const { return opt_; }

 private:
  TalOptions opt_;
};

}  // namespace ywb::loss
