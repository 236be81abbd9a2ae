// The loss a detection model gets, decided in one place for every client (the trainer's step, validation
// after each epoch and in `ywb val`, `ywb bench model`): a task-aligned loss with the model's classes,
// strides and box encoding (reg_max 16: DFL; 1: an L1 term in DFL's slot), or for an end-to-end head (YOLO26)
// the two-branch EndToEndLoss, whose logged items are the one-to-one branch's (what Ultralytics 8.4 logs, in
// training and in validation alike).
// Thread rules: const after construction; its calls are reentrant.
#pragma once
#include <ATen/ATen.h>

#include <optional>

#include "data/grouped_targets.h"
#include "loss/detection_loss.h"
#include "loss/end_to_end_loss.h"
#include "model/head_outputs.h"

namespace ywb::model {
class DetectionModelImpl;
}

namespace ywb::loss {

/// Whether a model's loss follows Ultralytics 8.4's small-box candidate rule: unless its modules are 8.3's
/// (ModelSpec::modules), so that an 8.3 checkpoint is validated as 8.3 computed its losses.
bool smallBoxRuleOf(const model::DetectionModelImpl& model);

/// Whether a training run's loss follows that rule: always, except a replay of Ultralytics 8.3.253's
/// reference run (`ultralytics_stream`, replays_83) of a model 8.3 could build. An end-to-end model (YOLO26)
/// exists only since 8.4, which always applied the rule, so its replay keeps it.
bool smallBoxRuleForTraining(const model::DetectionModelImpl& model, bool replays_83);

class ModelLoss {
 public:
  /// The loss of `model` with the run's gains. small_box_rule: 8.4's candidate rule (DetectionLossOptions);
  /// the trainer's choice is smallBoxRuleForTraining, `ywb val` follows the weights (smallBoxRuleOf).
  /// class_weights: `cls_pw`'s per-class weights [nc] on the model's device, for every branch's class loss
  /// (training's and the trainer's validation losses); undefined: none. fixed_shapes: the graph-ready form
  /// (DetectionLossOptions::fixed_shapes), for targets padded to a run-wide capacity.
  explicit ModelLoss(const model::DetectionModelImpl& model, LossGains gains = {}, bool small_box_rule = true,
                     at::Tensor class_weights = {}, bool fixed_shapes = false);

  /// Whether the model's head is end-to-end: the loss takes both branches (model forwardHeads) and logs the
  /// one-to-one branch's items.
  bool endToEnd() const { return e2e_.has_value(); }

  /// The training loss of one batch: `total` for backward, `items` the logged box, cls, dfl/L1. An
  /// end-to-end model's two branches are weighted by o2m, the one-to-many weight of the epoch
  /// (O2mSchedule::o2m(); ignored for other models).
  LossResult operator()(const model::HeadOutputs& maps, const GroupedTargets& targets, double o2m) const;
  /// The same from [M,6] target rows (image index, class, cx, cy, w, h; read back to the host once).
  LossResult operator()(const model::HeadOutputs& maps, const at::Tensor& targets, double o2m) const;

  /// The logged items [3] alone (detached), what validation averages: an end-to-end model's from
  /// maps.one2one only (its one-to-many maps may be absent), another model's from maps.one2many.
  at::Tensor items(const model::HeadOutputs& maps, const at::Tensor& targets) const;

  /// The options of the one-to-many branch (the whole loss of a model that is not end-to-end).
  const DetectionLossOptions& options() const;

 private:
  std::optional<DetectionLoss> plain_;  ///< set unless end-to-end
  std::optional<EndToEndLoss> e2e_;     ///< set for an end-to-end head
};

}  // namespace ywb::loss
