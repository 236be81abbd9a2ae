#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include "cli/verb_registry.h"
#include "core/atomic_file.h"
#include "core/threads.h"
#include "data/dataset_scanner.h"
#include "train/model_loader.h"
#include "train/run_dir.h"
#include "train/validator.h"

namespace ywb::cli {
namespace {

at::Device deviceFrom(const std::string& d) {
  if (d == "cpu" || (d.empty() && !torch::cuda::is_available())) return at::Device(at::kCPU);
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d.empty() ? 0 : std::stoi(d)));
}

int runVal(const Args& a) {
  a.requireKnown({"data", "weights", "imgsz", "batch", "conf", "iou", "max_det", "device", "workers", "save_json",
                  "project", "name", "split"});
  if (!a.has("data") || !a.has("weights")) throw Error("val needs data=DATA.yaml and weights=FILE.safetensors");
  configureTorchThreads(0);
  const at::Device device = deviceFrom(a.str("device"));
  LoadedModel lm = loadModelWeights(a.str("weights"), device);
  const DataConfig cfg = loadDataConfig(a.str("data"));
  if (cfg.names.size() != lm.names.size()) {
    throw Error("the weights have " + std::to_string(lm.names.size()) + " classes but " + cfg.yaml + " has " +
                std::to_string(cfg.names.size()));
  }
  auto split = std::make_shared<ScannedSplit>(scanSplit(cfg, a.str("split", "val")));
  LoaderOptions lo;
  lo.imgsz = int(a.integer("imgsz", lm.imgsz));
  lo.batch = int(a.integer("batch", 16));
  lo.workers = int(a.integer("workers", 4));
  lo.augment = false;
  lo.rect = true;
  lo.shuffle = false;
  lo.hyp = AugmentParams::none();
  DataLoader loader(split, lo);
  ValidatorOptions vo;
  vo.conf = a.number("conf", 0.001);
  vo.iou = a.number("iou", 0.7);
  vo.max_det = int(a.integer("max_det", 300));
  vo.keep_detections = a.boolean("save_json", false);
  const ValidationResult r = runValidation(*lm.model, loader, nullptr, int(lm.names.size()), vo, device);
  std::string json_path;
  if (vo.keep_detections) {
    const std::string dir = makeRunDir(a.str("project", "runs/detect"), a.str("name", "val"), false);
    json_path = dir + "/predictions.json";
    writeFileAtomic(json_path, detectionsToCocoJson(r.detections));
  }
  const auto& m = r.metrics;
  if (a.json) {
    nlohmann::ordered_json j;
    j["metric_kind"] = "COCO-exact";
    j["images"] = m.images;
    j["instances"] = m.instances;
    j["precision"] = m.precision;
    j["recall"] = m.recall;
    j["mAP50"] = m.map50;
    j["mAP50-95"] = m.map;
    j["coco"] = m.coco;
    for (const auto& c : m.per_class) {
      j["classes"].push_back({{"name", lm.names[size_t(c.cls)]}, {"instances", c.num_gt}, {"precision", c.precision},
                              {"recall", c.recall}, {"mAP50", c.ap50}, {"mAP50-95", c.ap}});
    }
    j["speed_ms"] = {{"preprocess", r.ms_preprocess}, {"inference", r.ms_inference}, {"nms", r.ms_nms},
                     {"metrics", r.ms_metrics}};
    if (!json_path.empty()) j["predictions"] = json_path;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%22s%9s%11s%9s%9s%9s%10s   (COCO-exact)\n", "Class", "Images", "Instances", "P", "R", "mAP50",
              "mAP50-95");
  std::printf("%22s%9lld%11lld%9.3f%9.3f%9.3f%10.3f\n", "all", (long long)m.images, (long long)m.instances,
              m.precision, m.recall, m.map50, m.map);
  for (const auto& c : m.per_class) {
    if (c.num_gt == 0) continue;
    std::printf("%22s%9s%11lld%9.3f%9.3f%9.3f%10.3f\n", lm.names[size_t(c.cls)].substr(0, 21).c_str(), "",
                (long long)c.num_gt, c.precision, c.recall, c.ap50, c.ap);
  }
  std::printf("Speed: %.1f ms preprocess, %.1f ms inference, %.1f ms NMS, %.1f ms metrics per image\n",
              r.ms_preprocess, r.ms_inference, r.ms_nms, r.ms_metrics);
  if (!json_path.empty()) std::printf("Detections (COCO results format) in %s\n", json_path.c_str());
  return 0;
}

const RegisterVerb reg{
    {"val", "validate weights on a dataset split (COCO-exact metrics)",
     "data=DATA.yaml weights=FILE.safetensors [imgsz=from weights] [batch=16] [conf=0.001] [iou=0.7]\n"
     "        [max_det=300] [device=cpu|0] [workers=4] [split=val] [save_json=false] [project=runs/detect]\n"
     "        [name=val] [--json]\n\n"
     "Letterboxed rectangular batches, NMS, then COCO-exact P, R, mAP50, mAP50-95 (pycocotools numbers,\n"
     "not Ultralytics' in-training mAP, which reads higher) per class, and time per image. weights= is a\n"
     "training checkpoint (its EMA weights are used) or exported safetensors weights. save_json=true writes\n"
     "the detections in COCO results format (category_id = class index) to the run folder.",
     runVal}};

}  // namespace
}  // namespace ywb::cli
