// YOLOv8 detection loss: task-aligned assignment, CIoU + DFL box losses on positives weighted by their soft
// scores, BCE on all anchors' class logits against the soft scores; each normalised by the sum of target
// scores, scaled by the gains. Thread rules: const after construction; operator() is reentrant.
#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "data/grouped_targets.h"
#include "loss/tal_assigner.h"
#include "model/detection_model.h"

namespace ywb::loss {

/// Ultralytics' hyperparameter names and defaults.
struct LossGains {
  double box = 7.5;
  double cls = 0.5;
  double dfl = 1.5;
};

struct LossResult {
  at::Tensor total;  ///< scalar for backward: (box + cls + dfl) * batch_size, as Ultralytics
  at::Tensor items;  ///< [3] detached: box, cls, dfl (gains applied), for logging
};

class DetectionLoss {
 public:
  DetectionLoss(const model::DetectionModel& model, LossGains gains = {});
  DetectionLoss(int64_t nc, std::vector<int64_t> strides, LossGains gains = {});

  /// feats: the model's raw maps [N, 4*16+nc, H/s, W/s]; targets [M,6] rows (image index, class, cx, cy, w,
  /// h) with the box normalised to the input image. Any M >= 0, boxes anywhere (clipped by the assignment).
  /// Reads the rows back to the host once to group them (validation, tests).
  LossResult operator()(const std::vector<at::Tensor>& feats, const at::Tensor& targets) const;
  /// The same loss from targets the loader grouped on the host (groupTargets), already on the maps' device:
  /// no device-to-host read (the training step).
  LossResult operator()(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const;

  const LossGains& gains() const { return gains_; }

 private:
  int64_t nc_;
  std::vector<int64_t> strides_;
  LossGains gains_;
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
PaddedTargets scaleTargets(const GroupedTargets& grouped, double img_w, double img_h);

}  // namespace ywb::loss
