#include "train/auto_batch_step.h"

#include "core/torch_compat.h"
#include "loss/o2m_schedule.h"
#include "loss/synthetic_targets.h"

namespace ywb {

AutoBatchStep::AutoBatchStep(model::DetectionModel model, int imgsz, bool amp)
    : model_(std::move(model)), loss_(*model_), imgsz_(imgsz), amp_(amp) {
  model_->train();
}

AutoBatchStep::Inputs AutoBatchStep::inputs(int batch) const {
  const at::Device device = model_->parameters().front().device();
  return {at::rand({batch, 3, imgsz_, imgsz_}, at::TensorOptions(device)),
          loss::syntheticTargets(batch, model_->nc(), uint64_t(batch))};
}

at::Tensor AutoBatchStep::run(const Inputs& in) {
  const at::Device device = in.images.device();
  model::HeadOutputs heads;
  {
    // As the trainer: autocast around the forward only; the loss casts the maps to fp32 once.
    const compat::AutocastScope autocast(device.type(), amp_, device.is_cuda() ? at::kHalf : at::kBFloat16);
    heads = model_->forwardHeads(in.images);  // one2one too for an end-to-end head
  }
  const at::Tensor total = loss_(heads, in.targets, loss::O2mSchedule::kStart).total;
  total.backward();
  return total.detach();
}

void StepProbe::trial(int batch) {
  if (memory_.before_trial) memory_.before_trial();
  step_.model()->zero_grad();
  step_.run(batch);
}

}  // namespace ywb
