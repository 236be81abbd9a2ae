#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/eval_bench.h"

namespace ywb::cli {
namespace {

int runBenchEval(const Args& a) {
  a.requireKnown(
      {"images", "batch", "classes", "anchors", "threads", "device", "seed", "coco_images", "coco_dets"});
  EvalBenchOptions o;
  o.images = int(a.integer("images", o.images));
  o.batch = int(a.integer("batch", o.batch));
  o.classes = int(a.integer("classes", o.classes));
  o.anchors = int(a.integer("anchors", o.anchors));
  o.threads = int(a.integer("threads", o.threads));
  o.device = a.str("device", o.device);
  o.seed = uint64_t(a.integer("seed", 0));
  o.coco_images = int(a.integer("coco_images", 0));
  o.coco_dets = int(a.integer("coco_dets", o.coco_dets));
  const EvalBenchReport r = benchmarkEval(o);
  std::cout << (a.json ? evalBenchJson(o, r) + "\n" : evalBenchText(o, r));
  return 0;
}

const RegisterVerb reg{
    {"bench eval", "time NMS and the COCO-exact metrics on synthetic YOLOv8 outputs",
     "[images=512] [batch=16] [classes=80] [anchors=8400] [threads=0] [device=cpu] [seed=0]\n"
     "           [coco_images=0] [coco_dets=100] [--json]\n\n"
     "Generates head outputs [batch, 4 + classes, anchors] like a trained model's (most anchors below\n"
     "conf 0.001, ten objects per image), runs NMS with the validation defaults (conf 0.001, IoU 0.7,\n"
     "max_det 300), feeds DetectionMetrics and computes it; also times NMS when every anchor is a\n"
     "candidate (uniform scores).\n\n"
     "  threads=N  LibTorch intra-op threads (0 = all available CPUs)\n"
     "  device=D   cpu or cuda\n"
     "  coco_images=N  also time DetectionMetrics alone on N images with coco_dets detections each\n"
     "                 (COCO val2017 scale: coco_images=5000)",
     runBenchEval}};

}  // namespace
}  // namespace ywb::cli
