#include "train/validator.h"

#include <torch/autograd.h>

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/stopwatch.h"
#include "core/torch_compat.h"
#include "eval/end2end.h"
#include "eval/nms.h"
#include "model/test_time_augment.h"

namespace ywb {

LoaderOptions validationLoaderOptions(int imgsz, int batch, int workers) {
  LoaderOptions lo;
  lo.imgsz = imgsz;
  lo.batch = batch;
  lo.workers = workers;
  lo.augment = false;
  lo.rect = true;  // with augment off: Ultralytics' validation batches (rectBatchPad)
  lo.shuffle = false;
  lo.exact_decode = true;
  lo.hyp = AugmentParams::none();
  return lo;
}

void unletterbox(const ImageMeta& m, float& x1, float& y1, float& x2, float& y2) {
  auto fx = [&](float x) { return std::clamp(float((x - m.pad_x) / m.ratio_w), 0.0f, float(m.orig_w)); };
  auto fy = [&](float y) { return std::clamp(float((y - m.pad_y) / m.ratio_h), 0.0f, float(m.orig_h)); };
  x1 = fx(x1);
  x2 = fx(x2);
  y1 = fy(y1);
  y2 = fy(y2);
}

void addBatchDetections(const Batch& batch, const std::vector<at::Tensor>& dets, DetectionMetrics& metrics,
                        std::vector<ImageDetections>* kept) {
  const int64_t n = batch.images.size(0);
  if (int64_t(dets.size()) != n) fail("validation: ", dets.size(), " detection lists for ", n, " images");
  const float W = float(batch.images.size(3)), H = float(batch.images.size(2));
  at::Tensor tg = batch.targets.to(at::kCPU).contiguous();
  auto ta = tg.accessor<float, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const ImageMeta& meta = batch.meta[size_t(i)];
    std::vector<GtBox> gt;
    for (int64_t r = 0; r < tg.size(0); ++r) {
      if (int64_t(ta[r][0]) != i) continue;
      GtBox g;
      g.cls = int(ta[r][1]);
      g.x1 = (ta[r][2] - ta[r][4] / 2) * W;
      g.x2 = (ta[r][2] + ta[r][4] / 2) * W;
      g.y1 = (ta[r][3] - ta[r][5] / 2) * H;
      g.y2 = (ta[r][3] + ta[r][5] / 2) * H;
      unletterbox(meta, g.x1, g.y1, g.x2, g.y2);
      gt.push_back(g);
    }
    at::Tensor d = dets[size_t(i)].to(at::kCPU, at::kFloat).contiguous();
    std::vector<DetBox> boxes;
    auto da = d.accessor<float, 2>();
    for (int64_t k = 0; k < d.size(0); ++k) {
      DetBox b{da[k][0], da[k][1], da[k][2], da[k][3], da[k][4], int(da[k][5])};
      unletterbox(meta, b.x1, b.y1, b.x2, b.y2);
      boxes.push_back(b);
    }
    if (kept) kept->push_back({batch.paths[size_t(i)], meta.orig_w, meta.orig_h, boxes, gt, 0.0});
    metrics.addImage(gt, boxes);
  }
}

void setPerImageTimes(ValidationResult& res, double pre_s, double inf_s, double nms_s, double met_s) {
  if (res.images <= 0) return;
  const double k = 1000.0 / double(res.images);
  res.ms_preprocess = pre_s * k;
  res.ms_inference = inf_s * k;
  res.ms_nms = nms_s * k;
  res.ms_metrics = met_s * k;
}

ValidationResult runValidation(model::DetectionModelImpl& model, DataLoader& loader,
                               const loss::ModelLoss* loss, int num_classes, const ValidatorOptions& opt,
                               const at::Device& device, const std::function<bool()>& should_stop,
                               const std::function<void(int64_t)>& before_batch) {
  if (loss && loss->endToEnd() != model.end2end())
    fail("validation: the loss is ", loss->endToEnd() ? "" : "not ", "end-to-end but the model is",
         model.end2end() ? "" : " not");
  // The branches to run: decoding takes the one-to-one maps on the NMS-free path (an end-to-end model and
  // options.end2end), else the one-to-many ones; the loss takes an end-to-end model's one-to-one maps, else
  // the one-to-many ones. Only the branches needed run.
  const bool e2e = opt.end2end && model.end2end();
  const bool need_o2o = e2e || (loss && loss->endToEnd());
  const bool need_o2m = !e2e || (loss && !loss->endToEnd());
  auto heads = [&](const at::Tensor& xs) {
    if (need_o2o && need_o2m) return model.forwardHeads(xs);
    if (need_o2o) return model::HeadOutputs{{}, model.forwardInference(xs, true)};
    return model::HeadOutputs{model.forward(xs), {}};
  };
  ValidationResult res;
  res.nms_free = e2e;
  res.augmented = opt.augment && !e2e;
  DetectionMetrics metrics(num_classes);
  const bool was_training = model.is_training();
  model.eval();
  torch::NoGradGuard no_grad;
  at::Tensor loss_sum = at::zeros({3}, at::TensorOptions().device(device));
  int64_t batches = 0;
  double t_pre = 0, t_inf = 0, t_nms = 0, t_met = 0;
  loader.startEpoch(0);  // keeps an epoch the trainer started ahead (DataLoader::prefetchEpoch)
  Batch batch;
  for (;;) {
    auto t0 = SteadyClock::now();
    if (!loader.next(batch)) break;
    res.data_wait_s += secondsSince(t0);
    if (opt.on_last_batch && size_t(batches + 1) == loader.batchesPerEpoch()) opt.on_last_batch();
    if (should_stop && should_stop()) break;
    if (before_batch) before_batch(batch.images.size(0));
    t0 = SteadyClock::now();
    at::Tensor x = batch.images.to(device, /*non_blocking=*/true).to(at::kFloat).div_(255.0);
    at::Tensor targets = batch.targets.to(device);
    t_pre += secondsSince(t0);
    t0 = SteadyClock::now();
    model::HeadOutputs h;
    const compat::AutocastScope autocast(device.type(), opt.autocast, opt.autocast_dtype);
    const int64_t slice = opt.max_forward_batch;
    if (opt.warmup && batches == 0) {  // untimed: the first batch's shapes set up once
      heads(x.narrow(0, 0, slice > 0 ? std::min(slice, x.size(0)) : x.size(0)));
      t0 = SteadyClock::now();
    }
    if (slice > 0 && x.size(0) > slice) {
      std::vector<std::vector<at::Tensor>> o2m, o2o;  // [level][slice]
      for (int64_t s = 0; s < x.size(0); s += slice) {
        const model::HeadOutputs part = heads(x.narrow(0, s, std::min(slice, x.size(0) - s)));
        o2m.resize(part.one2many.size());
        o2o.resize(part.one2one.size());
        for (size_t l = 0; l < part.one2many.size(); ++l) o2m[l].push_back(part.one2many[l]);
        for (size_t l = 0; l < part.one2one.size(); ++l) o2o[l].push_back(part.one2one[l]);
      }
      for (auto& l : o2m) h.one2many.push_back(at::cat(l, 0));
      for (auto& l : o2o) h.one2one.push_back(at::cat(l, 0));
    } else {
      h = heads(x);
    }
    for (auto& f : h.one2many) f = f.to(at::kFloat);
    for (auto& f : h.one2one) f = f.to(at::kFloat);
    at::Tensor pred = model.detect()->decode(e2e ? h.one2one : h.one2many);
    if (res.augmented) {
      const auto one_pass = [&](const at::Tensor& xi) {
        std::vector<at::Tensor> maps = model.forward(xi);
        for (auto& f : maps) f = f.to(at::kFloat);
        return model.detect()->decode(maps);
      };
      pred = model::augmentedPrediction(x, model.strides(), one_pass, pred);
    }
    if (loss) loss_sum += loss->items(h, targets).to(device);
    t_inf += secondsSince(t0);
    t0 = SteadyClock::now();
    std::vector<at::Tensor> dets = e2e ? eval::end2endDetections(pred, opt.conf, opt.max_det)
                                       : eval::nonMaxSuppression(pred, opt.conf, opt.iou, opt.max_det,
                                                                 opt.agnostic, 30000, opt.multi_label);
    t_nms += secondsSince(t0);
    if (opt.on_batch) opt.on_batch(batch, dets, batches);
    t0 = SteadyClock::now();
    const int64_t n = x.size(0);
    addBatchDetections(batch, dets, metrics, opt.keep_detections ? &res.detections : nullptr);
    t_met += secondsSince(t0);
    ++batches;
    res.images += n;
  }
  const auto t0 = SteadyClock::now();
  res.metrics = metrics.compute();
  t_met += secondsSince(t0);
  if (batches > 0 && loss) {
    at::Tensor mean = (loss_sum / double(batches)).to(at::kCPU);
    res.box = mean[0].item<double>();
    res.cls = mean[1].item<double>();
    res.dfl = mean[2].item<double>();
    res.has_losses = true;
  }
  setPerImageTimes(res, t_pre, t_inf, t_nms, t_met);
  if (was_training) model.train();
  return res;
}

}  // namespace ywb
