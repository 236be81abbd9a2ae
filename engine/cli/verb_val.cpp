#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/augment_arg.h"
#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "ywb/error.h"
#include "ywb/inference.h"

namespace ywb::cli {
namespace {

int runVal(const Args& a) {
  a.requireKnown({"data",    "weights", "model",   "imgsz",     "batch",     "conf",    "iou",
                  "max_det", "device",  "workers", "save_json", "plots",     "project", "name",
                  "split",   "end2end", "augment", "save_txt",  "save_conf", "rect"});
  ValOptions o;
  o.data = a.str("data");
  o.weights = resolveWeightsArg(weightsValue(a), a.json);
  o.split = a.str("split", o.split);
  o.imgsz = int(a.integer("imgsz", 0));
  o.batch = int(a.integer("batch", o.batch));
  o.conf = a.number("conf", o.conf);
  o.iou = a.number("iou", o.iou);
  o.max_det = int(a.integer("max_det", o.max_det));
  o.device = a.str("device");
  o.workers = int(a.integer("workers", o.workers));
  o.end2end = a.boolean("end2end", o.end2end);
  o.augment = a.boolean("augment", o.augment);
  o.rect = a.boolean("rect", o.rect);
  // Ultralytics' val writes into a new run folder: its plots (plots=true, its default) and predictions.json.
  const bool plots = a.boolean("plots", true), save_json = a.boolean("save_json", false);
  const bool save_txt = a.boolean("save_txt", false);
  o.save_conf = a.boolean("save_conf", false);
  const std::string dir =
      plots || save_json || save_txt ? newRunDir(a.str("project", "runs/detect"), a.str("name", "val")) : "";
  if (save_json) o.save_json = dir + "/predictions.json";
  if (save_txt) o.labels_dir = dir + "/labels";
  if (plots) o.plots_dir = dir;
  const ValReport r = [&] {
    try {
      return validateWeights(o);
    } catch (...) {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove(dir, ec);  // the new folder, when nothing was written into it
      throw;
    }
  }();
  if (o.augment && !r.augmented) std::fprintf(stderr, "%s\n", augmentIgnoredNote().c_str());
  const auto& m = r.metrics;
  if (a.json) {
    nlohmann::ordered_json j;
    j["metric_kind"] = "COCO-exact";
    j["runtime"] = r.runtime;
    j["imgsz"] = r.imgsz;
    j["batch"] = r.batch;
    j["rect"] = r.rect;
    j["images"] = m.images;
    j["instances"] = m.instances;
    j["precision"] = m.precision;
    j["recall"] = m.recall;
    j["mAP50"] = m.map50;
    j["mAP50-95"] = m.map;
    j["coco"] = m.coco;
    j["augmented"] = r.augmented;
    j["classes"] = nlohmann::ordered_json::array();
    for (const auto& c : m.per_class) {
      j["classes"].push_back({{"name", r.names[size_t(c.cls)]},
                              {"instances", c.num_gt},
                              {"precision", c.precision},
                              {"recall", c.recall},
                              {"mAP50", c.ap50},
                              {"mAP50-95", c.ap}});
    }
    j["speed_ms"] = {{"preprocess", r.ms_preprocess},
                     {"inference", r.ms_inference},
                     {"nms", r.ms_nms},
                     {"metrics", r.ms_metrics}};
    // null, not 0, when no loss was computed
    j["losses"] = r.has_losses
                      ? nlohmann::ordered_json{{"box", r.box_loss}, {"cls", r.cls_loss}, {"dfl", r.dfl_loss}}
                      : nlohmann::ordered_json();
    if (!o.save_json.empty()) j["predictions"] = o.save_json;
    if (save_txt) j["labels"] = o.labels_dir;
    if (plots) j["plots"] = r.plots;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s, imgsz %d, batch %d, %s\n", r.runtime.c_str(), r.imgsz, r.batch,
              r.rect ? "rectangular batches" : "square batches");
  std::printf("%22s%9s%11s%9s%9s%9s%10s   (COCO-exact)\n", "Class", "Images", "Instances", "P", "R", "mAP50",
              "mAP50-95");
  std::printf("%22s%9lld%11lld%9.3f%9.3f%9.3f%10.3f\n", "all", (long long)m.images, (long long)m.instances,
              m.precision, m.recall, m.map50, m.map);
  for (const auto& c : m.per_class) {
    if (c.num_gt == 0) continue;
    std::printf("%22s%9s%11lld%9.3f%9.3f%9.3f%10.3f\n", r.names[size_t(c.cls)].substr(0, 21).c_str(), "",
                (long long)c.num_gt, c.precision, c.recall, c.ap50, c.ap);
  }
  // On the NMS-free path the NMS slot times the top-k selection that takes its place.
  std::printf("Speed: %.1f ms preprocess, %.1f ms inference, %.1f ms %s, %.1f ms metrics per image\n",
              r.ms_preprocess, r.ms_inference, r.ms_nms, r.nms_free ? "top-k (no NMS)" : "NMS", r.ms_metrics);
  if (r.augmented) std::printf("Test-time augmentation: 3 passes per image (1x, 0.83x mirrored, 0.67x)\n");
  if (r.has_losses)
    std::printf("Losses: box %.5f, cls %.5f, dfl %.5f (mean per batch of %d)\n", r.box_loss, r.cls_loss,
                r.dfl_loss, o.batch);
  else if (r.runtime.rfind("LibTorch", 0) != 0)
    std::printf("Losses: none (an exported graph holds no loss)\n");
  else
    std::printf("Losses: none (no batch was validated)\n");
  if (!o.save_json.empty()) std::printf("Detections (COCO results format) in %s\n", o.save_json.c_str());
  if (save_txt) std::printf("Detections (YOLO label files) in %s\n", o.labels_dir.c_str());
  if (plots) std::printf("Plots (confusion matrices, curves, val_batch images) in %s\n", dir.c_str());
  return 0;
}

const RegisterVerb reg{
    {"val", "validate weights on a dataset split (COCO-exact metrics)",
     "data=DATA.yaml weights=FILE.safetensors [imgsz=from weights] [batch=16] [conf=0.001] [iou=0.7]\n"
     "        [max_det=300] [device=cpu|0] [workers=4] [split=val] [save_json=false] [save_txt=false]\n"
     "        [save_conf=false] [plots=true] [project=runs/detect] [name=val] [end2end=true] "
     "[augment=false]\n"
     "        [rect=true]\n"
     "        [--json]\n\n"
     "Ultralytics' validation rules (OpenCV-exact JPEG decoding, rectangular batches with pad 0.5,\n"
     "multi-label NMS), then COCO-exact P, R, mAP50, mAP50-95 (pycocotools numbers, not Ultralytics'\n"
     "in-training mAP, which reads higher) per class, and time per image. weights= is a training\n"
     "checkpoint (its EMA weights are used) or exported safetensors weights. save_json=true writes the\n"
     "detections as Ultralytics does (COCO results; image_id = file stem, category_id = class + 1) to a\n"
     "new run folder. plots=true (as in Ultralytics) writes there the confusion matrix "
     "(counts and\n"
     "normalised per true class), the precision-recall curve and the F1, precision and recall curves\n"
     "against confidence (confusion_matrix.png, BoxPR_curve.png, ...) and the first three batches with\n"
     "their labels and predictions (val_batch0_labels.jpg, val_batch0_pred.jpg, ...). weights= (or\n"
     "model=, Ultralytics' name for it) may also be an official name (yolo11n.pt, `ywb weights list`).\n"
     "An end-to-end model (YOLO26) is validated NMS-free from its\n"
     "one-to-one head (the top max_det anchors, then the top max_det anchor-class pairs); end2end=false\n"
     "takes its one-to-many head with NMS.\n"
     "weights= may be an exported ONNX graph (best.onnx, ours or Ultralytics'): it runs in OpenCV DNN, or\n"
     "in ONNX Runtime where OpenCV cannot (an end-to-end graph; installer/install-onnxruntime.sh), with\n"
     "the same loader, NMS and metrics, so its numbers compare with its weights'. A fixed-size graph is\n"
     "validated on square batches of its own size and batch (as Ultralytics does); a dynamic one as the\n"
     "weights. rect=false letterboxes every image to imgsz x imgsz (what a fixed-size graph sees).\n"
     "weights= may also be an exported TorchScript model (best.torchscript, ours or Ultralytics'), run by\n"
     "LibTorch's TorchScript interpreter on the CPU: traced at one size and batch, it is validated as a\n"
     "fixed-size graph. A TorchScript file holds code that runs: use only files you trust.\n"
     "save_txt=true writes labels/<stem>.txt into the run folder: each image's detections as YOLO labels\n"
     "(class cx cy w h, normalised; save_conf=true adds the confidence), as Ultralytics' val.\n" +
         augmentHelp(),
     runVal}};

}  // namespace
}  // namespace ywb::cli
