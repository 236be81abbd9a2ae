#include "train/exported_validation.h"

#include <chrono>

#include "core/stopwatch.h"
#include "eval/end2end.h"
#include "eval/nms.h"

namespace ywb {

ValidationResult runExportedValidation(exported::ExportedDetector& model, DataLoader& loader, int num_classes,
                                       const ValidatorOptions& opt,
                                       const std::function<bool()>& should_stop) {
  const exported::ExportedModelInfo& info = model.info();
  ValidationResult res;
  res.nms_free = info.end2end;
  DetectionMetrics metrics(num_classes);
  // A runtime in a child process per run() (ONNX Runtime): a few batches at a time keep its start-up small
  // without holding the whole split in memory.
  const int64_t images_per_run = info.in_process ? 1 : 32;
  double t_pre = 0, t_inf = 0, t_nms = 0, t_met = 0;
  int64_t index = 0;
  std::vector<Batch> pending;
  int64_t pending_images = 0;
  const auto flush = [&] {
    if (pending.empty()) return;
    auto t0 = SteadyClock::now();
    std::vector<at::Tensor> inputs;
    for (const Batch& b : pending) inputs.push_back(b.images.to(at::kFloat).div_(255.0));
    t_pre += secondsSince(t0);
    if (opt.warmup && index == 0 && info.in_process) model.run({inputs.front()});
    t0 = SteadyClock::now();
    const std::vector<at::Tensor> outs = model.run(inputs);
    t_inf += secondsSince(t0);
    for (size_t k = 0; k < pending.size(); ++k) {
      t0 = SteadyClock::now();
      const std::vector<at::Tensor> dets =
          info.end2end ? eval::endToEndRows(outs[k], opt.conf, opt.max_det)
                       : eval::nonMaxSuppression(outs[k], opt.conf, opt.iou, opt.max_det, opt.agnostic, 30000,
                                                 opt.multi_label);
      t_nms += secondsSince(t0);
      if (opt.on_batch) opt.on_batch(pending[k], dets, index);
      t0 = SteadyClock::now();
      addBatchDetections(pending[k], dets, metrics, opt.keep_detections ? &res.detections : nullptr);
      t_met += secondsSince(t0);
      res.images += pending[k].images.size(0);
      ++index;
    }
    pending.clear();
    pending_images = 0;
  };
  loader.startEpoch(0);
  for (;;) {
    const auto t0 = SteadyClock::now();
    Batch batch;
    if (!loader.next(batch)) break;
    res.data_wait_s += secondsSince(t0);
    if (should_stop && should_stop()) return res;  // the caller reports the stop
    pending_images += batch.images.size(0);
    pending.push_back(std::move(batch));
    if (pending_images >= images_per_run) flush();
  }
  flush();
  const auto t0 = SteadyClock::now();
  res.metrics = metrics.compute();
  t_met += secondsSince(t0);
  setPerImageTimes(res, t_pre, t_inf, t_nms, t_met);
  return res;
}

}  // namespace ywb
