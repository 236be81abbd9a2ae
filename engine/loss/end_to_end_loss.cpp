#include "loss/end_to_end_loss.h"

#include "core/error.h"
#include "loss/o2m_schedule.h"

namespace ywb::loss {

namespace {

DetectionLossOptions oneToOne(DetectionLossOptions o) {
  o.topk = 7;
  o.topk2 = 1;
  return o;
}

}  // namespace

EndToEndLoss::EndToEndLoss(const DetectionLossOptions& options)
    : one2many_(options), one2one_(oneToOne(options)) {}

EndToEndLossResult EndToEndLoss::operator()(const model::HeadOutputs& maps, const at::Tensor& targets,
                                            double o2m) const {
  if (maps.one2many.empty()) fail("end-to-end loss: no one-to-many maps");
  const at::Tensor& f = maps.one2many[0];
  return (*this)(maps, groupTargets(targets, f.size(0), one2many_.options().nc).to(f.device(), false), o2m);
}

EndToEndLossResult EndToEndLoss::operator()(const model::HeadOutputs& maps, const GroupedTargets& targets,
                                            double o2m) const {
  if (maps.one2many.empty() || maps.one2one.empty())
    fail("end-to-end loss: ", maps.one2many.size(), " one-to-many and ", maps.one2one.size(),
         " one-to-one maps (an end-to-end head gives both)");
  const double batch = double(maps.one2many[0].size(0));
  const at::Tensor many = one2many_.terms(maps.one2many, targets);
  const at::Tensor one = one2one_.terms(maps.one2one, targets);
  const double o2o = O2mSchedule::o2oFor(o2m);
  // As Ultralytics: each branch's terms times the batch size, weighted, then summed.
  const at::Tensor total = ((many * batch) * o2m + (one * batch) * o2o).sum();
  return {total, one.detach(), many.detach()};
}

}  // namespace ywb::loss
