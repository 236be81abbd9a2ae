// Validation at an epoch's end: the EMA weights under the run's rules, its timing split into the run's
// segments, and a smaller validation batch for the rest of the run when memory runs out.
#include <string>

#include "core/class_name.h"
#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "train/epoch_validation.h"
#include "train/train_session.h"
#include "train/validator.h"
#include "ywb/metrics.h"

namespace ywb {

bool isOutOfMemory(const std::string& why) {
  return why.find("out of memory") != std::string::npos;
}

ValidatorOptions runValidatorOptions(const TrainSession& s) {
  ValidatorOptions vo;
  vo.conf = s.args.conf;
  vo.iou = s.args.iou;
  vo.max_det = s.args.max_det;
  vo.end2end = s.args.end2end;  // an end-to-end model: NMS-free (one-to-one) or one-to-many + NMS
  // In the training's precision, as Ultralytics validates during AMP training (half = amp): on this CPU bf16
  // made the 10-epoch benchmark 5 s faster (71.0 -> 65.8 s) and read mAP50-95 0.001 lower than fp32 on
  // Ultralytics' shapes checkpoints (docs/PERFORMANCE.md); `ywb val` stays fp32; val_amp=false keeps fp32.
  vo.autocast = s.autocast && s.args.val_amp;
  vo.autocast_dtype = s.amp_dtype;
  // Twice the training batch is loaded (Ultralytics' letterbox shapes and results), but the model runs on
  // at most a training batch at a time: measured on CPU, a whole 2x batch peaked at 1.6x the training step's
  // RSS (docs/RELIABILITY.md), and a run that trains must not fail in validation.
  vo.max_forward_batch = std::max(1, s.args.batch / s.distWorld());
  return vo;
}

EpochMetrics validateEpoch(TrainSession& s, int epoch) {
  EpochMetrics em;
  em.epoch = epoch;
  em.epochs = s.epochs;
  s.phase(TrainPhase::Validating, "epoch " + std::to_string(epoch + 1) + " (EMA weights)");
  // No heap trim here (there was one): handing the training step's free pages back before each validation
  // lowered validation's peak RSS by only 30 MB (1303 -> 1272 MB, coco128 320) and cost 4.2 s of a 10-epoch
  // run (78.6 -> 74.4 s without it): every page came back as a page fault in validation and the next epoch
  // (docs/PERFORMANCE.md). The run's end still trims (ReleaseOnExit) for long-lived processes.
  ValidatorOptions vo = runValidatorOptions(s);
  // The next training epoch's images load from the moment the validation images are all in.
  vo.on_last_batch = [&s, epoch] { prefetchNextEpoch(s, epoch); };
  // plots=true: the first batches as val_batch pictures, drawn at the run's end if this epoch is the best
  ValPlots plots;
  if (s.args.plots && s.isMain()) {
    vo.on_batch = [&plots](const Batch& b, const std::vector<at::Tensor>& dets, int64_t index) {
      if (index < kValBatchPlots) plots.batches.push_back(captureValBatch(b, dets));
    };
  }
  ValidationResult v;
  for (;;) {
    try {
      plots.batches.clear();  // a retry with a smaller batch starts them again
      v = runValidation(
          *s.ema_model, *s.val_loader, s.loss.get(), s.nc, vo, s.device, [&] { return s.stop->load(); },
          [&](int64_t n) { s.hooks->beforeStep(n); });
      break;
    } catch (...) {
      // A run that trains must not die in validation: its batch (twice the training batch, as Ultralytics')
      // is halved until it fits, for the rest of the run. The training batch stays.
      const std::string why = describeCurrentException();
      if (!isOutOfMemory(why) || s.val_batch <= 1) throw;
      const int smaller = s.val_batch / 2;
      s.log("validation ran out of memory with batch " + std::to_string(s.val_batch) +
            ": validating with batch " + std::to_string(smaller) +
            " from now on (the training batch is unchanged)");
      if (s.device.is_cuda()) cuda::emptyCache();
      buildValLoader(s, smaller);
    }
  }
  const double per_ms = double(v.images) / 1000.0;
  s.timing.add(RunSegment::ValData, v.data_wait_s);
  s.timing.add(RunSegment::ValPreprocess, v.ms_preprocess * per_ms);
  s.timing.add(RunSegment::ValInference, v.ms_inference * per_ms);
  s.timing.add(RunSegment::ValNms, v.ms_nms * per_ms);
  s.timing.add(RunSegment::ValMetrics, v.ms_metrics * per_ms);
  em.validated = true;
  em.val_box = v.box;
  em.val_cls = v.cls;
  em.val_dfl = v.dfl;
  em.precision = v.metrics.precision;
  em.recall = v.metrics.recall;
  em.map50 = v.metrics.map50;
  em.map = v.metrics.map;
  em.fitness = v.metrics.fitness();
  for (const auto& c : v.metrics.per_class) {
    ClassResult r;
    r.name = className(s.names, c.cls);
    r.instances = c.num_gt;
    r.precision = c.precision;
    r.recall = c.recall;
    r.ap50 = c.ap50;
    r.ap = c.ap;
    em.classes.push_back(r);
  }
  s.log(metricsSummaryLine(v.metrics));
  if (s.args.plots) {
    plots.epoch = epoch;
    plots.results = std::move(v.metrics);
    s.last_val = std::move(plots);
  }
  return em;
}

}  // namespace ywb
