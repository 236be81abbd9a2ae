#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/model_info.h"

namespace ywb::cli {
namespace {

int runModelInfo(const Args& a) {
  a.requireKnown({"model", "nc", "imgsz"});
  const ModelInfo info =
      modelInfo(a.str("model", "yolov8n.yaml"), int(a.integer("nc", 0)), int(a.integer("imgsz", 640)));
  std::cout << (a.json ? modelInfoJson(info) + "\n" : modelInfoText(info));
  return 0;
}

const RegisterVerb reg{
    {"model info", "print a model's layer table, parameters and GFLOPs",
     "[model=yolov8n.yaml] [nc=N] [imgsz=640] [--json]\n\n"
     "Builds the model (random weights) and prints each layer (index, from, repeats, params,\n"
     "module, resolved args) and the totals: parameters, gradients, GFLOPs at imgsz x imgsz\n"
     "(fused Conv+BN, the figure Ultralytics prints for a fused model; unfused also shown).\n\n"
     "  model=NAME|PATH  yolov8n.yaml ... yolov8x.yaml, yolo11n.yaml ... yolo11x.yaml (built in),\n"
     "                   or an Ultralytics-format model YAML file\n"
     "  nc=N             number of classes (default: the YAML's nc, 80)\n"
     "  imgsz=N          square input size for GFLOPs, a multiple of 32 (default 640)\n"
     "  --json           print the table and totals as JSON",
     runModelInfo}};

}  // namespace
}  // namespace ywb::cli
