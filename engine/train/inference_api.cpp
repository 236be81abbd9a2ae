// validateWeights(): the engine side of `ywb val` (predictImages() is in predict_api.cpp).
#include <torch/cuda.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "data/dataset_scanner.h"
#include "eval/coco_ids.h"
#include "sys/torch_info.h"
#include "train/detection_labels.h"
#include "train/device.h"
#include "train/exported_validation.h"
#include "train/model_loader.h"
#include "train/run_dir.h"
#include "train/run_plots.h"
#include "train/validator.h"
#include "ywb/inference.h"
#include "ywb/plots.h"

namespace fs = std::filesystem;

namespace ywb {

std::string newRunDir(const std::string& project, const std::string& name) {
  return makeRunDir(project, name, false, /*weights_folder=*/false);  // a predict run holds no weights
}

namespace {

// What validates: a LibTorch model from weights, or an exported model (its names, the loader it needs).
struct Validatee {
  LoadedModel lm;
  std::unique_ptr<exported::ExportedDetector> exported;
  std::vector<std::string> names;
  LoaderOptions loader;
};

Validatee openValidatee(const ValOptions& o, const at::Device& device) {
  Validatee v;
  if (!exported::isExportedModelPath(o.weights)) {
    v.lm = loadModelWeights(o.weights, device);
    v.names = v.lm.names;
    v.loader = validationLoaderOptions(o.imgsz > 0 ? o.imgsz : v.lm.imgsz, o.batch, o.workers);
    v.loader.rect = o.rect;
    return v;
  }
  v.exported = exported::openExportedDetector(o.weights);
  const exported::ExportedModelInfo& info = v.exported->info();
  v.names = info.names;
  exported::checkExportedOptions(info, o.end2end, o.augment);
  // Ultralytics' rule for a fixed-size export: square batches of its own size and batch.
  const int imgsz = exported::exportedImageSize(info, o.imgsz);
  const bool rect = o.rect && !info.fixedSize();
  const int batch = info.batch > 0 ? int(info.batch) : o.batch;
  v.loader = validationLoaderOptions(imgsz, batch, o.workers);
  v.loader.rect = rect;
  v.loader.stride = info.stride;
  return v;
}

}  // namespace

ValReport validateWeights(const ValOptions& o) {
  return guarded("val", [&] {
    if (o.data.empty() || o.weights.empty()) fail("val needs data=DATA.yaml and weights=FILE.safetensors");
    configureTorchThreads(0);
    const at::Device device = pickDevice(o.device);
    Validatee m = openValidatee(o, device);
    const DataConfig cfg = loadDataConfig(o.data);
    if (cfg.names.size() != m.names.size()) {
      fail("the weights have ", m.names.size(), " classes but ", cfg.yaml, " has ", cfg.names.size());
    }
    auto split = std::make_shared<ScannedSplit>(scanSplit(cfg, o.split));
    DataLoader loader(split, m.loader);
    ValidatorOptions vo;
    vo.conf = o.conf;
    vo.iou = o.iou;
    vo.max_det = o.max_det;
    vo.end2end = o.end2end;
    vo.augment = o.augment;
    vo.warmup = o.warmup;
    vo.keep_detections = o.keep_detections || !o.save_json.empty() || !o.labels_dir.empty();
    std::vector<std::string> plots;
    if (!o.plots_dir.empty()) {
      vo.on_batch = [&](const Batch& b, const std::vector<at::Tensor>& dets, int64_t index) {
        if (index < kValBatchPlots) {
          for (auto& f : writeValBatch(o.plots_dir, index, captureValBatch(b, dets), m.names))
            plots.push_back(std::move(f));
        }
      };
    }
    ValidationResult r;
    if (m.exported) {
      r = runExportedValidation(*m.exported, loader, int(m.names.size()), vo, o.cancel);
    } else {
      // The model's loss with the default gains, under the rules of the Ultralytics release its modules
      // follow (an 8.3 checkpoint's losses as 8.3's validator computes them).
      const loss::ModelLoss criterion(*m.lm.model, {}, loss::smallBoxRuleOf(*m.lm.model));
      r = runValidation(*m.lm.model, loader, &criterion, int(m.names.size()), vo, device, o.cancel);
    }
    if (o.cancel && o.cancel()) fail("validation cancelled");
    if (!o.save_json.empty()) {
      const std::vector<std::string>& sources = o.split == "train"  ? cfg.train
                                                : o.split == "test" ? cfg.test
                                                                    : cfg.val;
      const auto ids = eval::cocoCategoryIds(eval::isCocoSplit(sources), m.names.size());
      writeFileAtomic(o.save_json, eval::ultralyticsResultsJson(r.detections, ids));
    }
    if (!o.labels_dir.empty()) {
      fs::create_directories(o.labels_dir);
      UniqueStems stems;
      for (const ImageDetections& d : r.detections)
        writeFileAtomic((fs::path(o.labels_dir) / (stems(d.path) + ".txt")).string(),
                        yoloLabelText(d.boxes, d.width, d.height, o.save_conf));
    }
    ValReport rep;
    if (!o.plots_dir.empty()) {
      for (auto& f : writeMetricPlots(r.metrics, m.names, o.plots_dir)) plots.push_back(std::move(f));
      rep.plots = std::move(plots);
    }
    rep.metrics = std::move(r.metrics);
    rep.names = m.names;
    rep.ms_preprocess = r.ms_preprocess;
    rep.ms_inference = r.ms_inference;
    rep.ms_nms = r.ms_nms;
    rep.ms_metrics = r.ms_metrics;
    rep.has_losses = r.has_losses;
    if (r.has_losses) rep.box_loss = r.box, rep.cls_loss = r.cls, rep.dfl_loss = r.dfl;
    if (o.keep_detections) rep.detections = std::move(r.detections);
    rep.end2end_model = m.exported ? m.exported->info().end2end : m.lm.model->end2end();
    // ONNX Runtime's versions are known once it ran
    rep.runtime = m.exported ? m.exported->info().runtime : "LibTorch " + torchBuildInfo().version;
    rep.rect = m.loader.rect;
    rep.imgsz = m.loader.imgsz;
    rep.batch = m.loader.batch;
    rep.nms_free = r.nms_free;
    rep.augmented = r.augmented;
    return rep;
  });
}

}  // namespace ywb
