// Checkpoints with seeded random weights for export tests, and an ONNX export of one with OpenCV's check
// (test_export, test_export_yolo11). Models get random BatchNorm statistics, so Conv+BN folding is exercised.
#pragma once
#include <QString>
#include <QtTest>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "io/state_dict.h"
#include "model/detection_model.h"
#include "train/checkpoint.h"
#include "ywb/export.h"

namespace ywb::test {

inline const std::string kCoco = std::string(YW_SHARED_DIR) + "/datasets/coco128/images";

// Seeded random weights: convolutions keep LibTorch's (seeded) init; BatchNorms get gamma, beta, running
// mean and variance away from their identity defaults so that folding them into the convolution matters.
inline void randomize(ywb::model::DetectionModel& m, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard g;
  for (auto& [name, t] : ywb::namedStateDict(*m)) {
    // Class logits around 0 instead of the -10 prior, so scores spread over (0, 1) and their comparison
    // means something.
    // (YOLO26's one-to-one class branch, one2one_cv3, too.)
    const bool cls_branch =
        name.find(".cv3.") != std::string::npos || name.find("one2one_cv3.") != std::string::npos;
    if (cls_branch && name.find(".2.bias") != std::string::npos) t.normal_(0, 1);
    if (name.find(".bn.") == std::string::npos) continue;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0) t.uniform_(0.6, 1.4);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0) t.normal_(0, 0.1);
    if (name.find("running_mean") != std::string::npos) t.normal_(0, 0.1);
    if (name.find("running_var") != std::string::npos) t.uniform_(0.5, 1.5);
  }
}

inline std::vector<std::string> cocoNames(int nc) {
  std::vector<std::string> n;
  for (int i = 0; i < nc; ++i) n.push_back("class" + std::to_string(i));
  return n;
}

// The model YAML text of a built-in scale with only that scale left in `scales`. A checkpoint stores the
// full multi-scale YAML text and loadModelSpec() picks the first scale (n) from text, so a yolov8s
// checkpoint would not load back (reported to the model owner); this keeps the test about export.
inline std::string singleScaleYaml(const std::string& name) {
  auto m = ywb::model::buildModel(name);
  YAML::Node root = YAML::Load(m->yaml());
  YAML::Node only;
  only[m->scale()] = root["scales"][m->scale()];
  root["scales"] = only;
  YAML::Emitter e;
  e << root;
  return std::string(e.c_str()) + "\n";
}

// A training checkpoint like the trainer writes: "model.*" and (different) "ema.*" tensors + metadata.
inline std::string writeCheckpoint(const QString& dir, const std::string& yaml, int nc, uint64_t seed) {
  const std::string text = yaml == "yolov8n.yaml" ? yaml : singleScaleYaml(yaml);
  auto model = ywb::model::buildModel(text, nc);
  auto ema = ywb::model::buildModel(text, nc);
  randomize(model, seed);
  randomize(ema, seed + 1);
  ywb::CheckpointParts parts;
  parts.model = model.ptr().get();
  parts.ema = ema.ptr().get();
  parts.metadata = {{"format", ywb::kCheckpointFormat},
                    {"model_yaml", model->yaml()},
                    {"names", nlohmann::json(cocoNames(nc)).dump()},
                    {"nc", std::to_string(nc)},
                    {"imgsz", "640"},
                    {"args", "model: " + yaml + "\nepochs: 3\nlr0: 0.01\nname: 'run'\n"},
                    {"metrics", "{\"metrics/mAP50-95(B)\": 0.25}"}};
  const std::string path = (dir + "/" + QString::fromStdString(yaml) + ".ckpt.safetensors").toStdString();
  ywb::saveCheckpoint(path, parts);
  return path;
}

inline ywb::ExportReport exportOnnx(const std::string& ckpt, const QString& out, int imgsz,
                                    bool dynamic = false, bool half = false, int images = 3,
                                    const std::string& name = "") {
  ywb::ExportOptions o;
  o.weights = ckpt;
  o.formats = {"onnx"};
  o.out_dir = out.toStdString();
  o.name = name;
  o.imgsz = imgsz;
  o.dynamic = dynamic;
  o.half = half;
  o.verify_source = kCoco;
  o.verify_images = images;
  return ywb::exportWeights(o);
}

}  // namespace ywb::test
