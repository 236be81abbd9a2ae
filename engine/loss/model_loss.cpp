#include "loss/model_loss.h"

#include "core/error.h"
#include "model/detection_model.h"

namespace ywb::loss {

bool smallBoxRuleOf(const model::DetectionModelImpl& m) {
  return m.spec().modules != "8.3";
}

bool smallBoxRuleForTraining(const model::DetectionModelImpl& m, bool replays_83) {
  return !replays_83 || m.end2end();
}

ModelLoss::ModelLoss(const model::DetectionModelImpl& m, LossGains gains, bool small_box_rule,
                     at::Tensor class_weights, bool fixed_shapes) {
  DetectionLossOptions o;
  o.nc = m.nc();
  o.strides = m.strides();
  o.reg_max = m.regMax();  // 1 (YOLO26): no DFL, an L1 term in its slot
  o.gains = gains;
  o.small_box_rule = small_box_rule;
  o.class_weights = std::move(class_weights);
  o.fixed_shapes = fixed_shapes;
  if (m.end2end())
    e2e_.emplace(o);
  else
    plain_.emplace(o);
}

LossResult ModelLoss::operator()(const model::HeadOutputs& maps, const GroupedTargets& targets,
                                 double o2m) const {
  if (!e2e_) return (*plain_)(maps.one2many, targets);
  const EndToEndLossResult r = (*e2e_)(maps, targets, o2m);
  return {r.total, r.items};
}

LossResult ModelLoss::operator()(const model::HeadOutputs& maps, const at::Tensor& targets,
                                 double o2m) const {
  if (maps.one2many.empty()) fail("loss: no one-to-many maps");
  const at::Tensor& f = maps.one2many[0];
  return (*this)(maps, groupTargets(targets, f.size(0), options().nc).to(f.device(), false), o2m);
}

at::Tensor ModelLoss::items(const model::HeadOutputs& maps, const at::Tensor& targets) const {
  if (!e2e_) return (*plain_)(maps.one2many, targets).items;
  if (maps.one2one.empty()) fail("end-to-end loss: no one-to-one maps (an end-to-end head gives both)");
  // EndToEndLoss's items without the one-to-many branch's terms, which they do not depend on.
  return e2e_->one2one()(maps.one2one, targets).items;
}

const DetectionLossOptions& ModelLoss::options() const {
  return e2e_ ? e2e_->one2many().options() : plain_->options();
}

}  // namespace ywb::loss
