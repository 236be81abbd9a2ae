// End-to-end (NMS-free) detection loss of YOLO26: two task-aligned losses on the head's two branches, the
// one-to-many branch (top-k 10, as YOLOv8) and the one-to-one branch (top-k 7, then each object keeps its one
// best-aligned anchor), weighted o2m / o2o by the schedule (O2mSchedule) the caller passes in.
// Thread rules: const after construction; operator() is reentrant.
#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "data/grouped_targets.h"
#include "loss/detection_loss.h"
#include "model/head_outputs.h"

namespace ywb::loss {

struct EndToEndLossResult {
  at::Tensor total;  ///< scalar for backward: (o2m * terms_o2m + o2o * terms_o2o).sum() * batch size
  at::Tensor items;  ///< [3] detached: the one-to-one branch's box, cls, dfl/L1 (what Ultralytics logs)
  at::Tensor one2many_items;  ///< [3] detached: the one-to-many branch's, for charts
};

class EndToEndLoss {
 public:
  /// `options` describe the one-to-many branch (nc, strides, reg_max, gains, small-box rule); the one-to-one
  /// branch is the same with top-k 7 and a second top-k of 1.
  explicit EndToEndLoss(const DetectionLossOptions& options);

  /// maps: both branches' maps (model forwardHeads). o2m: the one-to-many weight in force this epoch
  /// (O2mSchedule::o2m()); o2o is O2mSchedule::o2oFor(o2m).
  EndToEndLossResult operator()(const model::HeadOutputs& maps, const GroupedTargets& targets,
                                double o2m) const;
  /// The same from [M,6] target rows (read back to the host once to group them).
  EndToEndLossResult operator()(const model::HeadOutputs& maps, const at::Tensor& targets, double o2m) const;

  const DetectionLoss& one2many() const { return one2many_; }
  const DetectionLoss& one2one() const { return one2one_; }

 private:
  DetectionLoss one2many_, one2one_;
};

}  // namespace ywb::loss
