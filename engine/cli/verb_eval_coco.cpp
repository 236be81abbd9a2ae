#include <cstdio>
#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/coco_eval.h"

namespace ywb::cli {
namespace {

int runEvalCoco(const Args& a) {
  a.requireKnown({"gt", "dt", "per_class"});
  if (!a.has("gt") || !a.has("dt")) {
    return reportError(
        a, "eval-coco needs gt=GROUND_TRUTH.json and dt=DETECTIONS.json (see ywb eval-coco --help)");
  }
  const CocoStats s = evaluateCocoFiles(a.str("gt"), a.str("dt"));
  if (a.json) {
    std::cout << cocoStatsJson(s) << "\n";
    return 0;
  }
  std::cout << "COCO bbox evaluation (computed as pycocotools COCOeval): " << s.num_images << " images, "
            << s.num_gt << " ground-truth boxes (" << s.num_crowd << " crowd), " << s.num_dt
            << " detections\n";
  if (s.skipped_dt) {
    std::cout << "  note: " << s.skipped_dt
              << " detections name categories that the ground truth lacks; skipped\n";
  }
  if (s.skipped_gt) {
    std::cout << "  note: " << s.skipped_gt << " annotations name unknown images or categories; skipped\n";
  }
  if (s.area_from_box) {
    std::cout << "  note: " << s.area_from_box << " annotations had no \"area\"; box w*h used\n";
  }
  std::cout << cocoStatsText(s);
  if (a.boolean("per_class", false)) {
    std::printf("\n%-24s %8s %8s %8s %8s %8s\n", "category", "gt", "dt", "AP", "AP50", "AR100");
    for (const auto& c : s.per_category) {
      const std::string name = c.name.empty() ? std::to_string(c.id) : c.name;
      std::printf("%-24s %8lld %8lld %8.3f %8.3f %8.3f\n", name.c_str(), static_cast<long long>(c.num_gt),
                  static_cast<long long>(c.num_dt), c.ap, c.ap50, c.ar100);
    }
  }
  return 0;
}

const RegisterVerb reg{
    {"eval-coco", "score COCO results JSON against COCO ground truth (pycocotools-exact)",
     "gt=GROUND_TRUTH.json dt=DETECTIONS.json [per_class=false] [--json]\n\n"
     "Evaluates detections in COCO results format ([{image_id, category_id, bbox [x,y,w,h], score}])\n"
     "against COCO instances ground truth, computing the 12 numbers exactly as the official COCO API\n"
     "(pycocotools COCOeval, iouType bbox) does: IoU .50:.05:.95, 101 recall points, small/medium/large\n"
     "by annotation area, maxDets 1/10/100, crowd boxes ignored. Image ids may be strings (Ultralytics'\n"
     "file stems), as pycocotools accepts.\n\n"
     "  gt=FILE        COCO instances JSON (images, categories, annotations)\n"
     "  dt=FILE        COCO results JSON (a list of detections)\n"
     "  per_class=BOOL also print AP, AP50 and AR100 per category\n"
     "  --json         print stats, per-category numbers and counts as JSON\n\n"
     "These COCO-exact numbers read lower than Ultralytics' in-training mAP on the same detections\n"
     "(different interpolation and matching).",
     runEvalCoco}};

}  // namespace
}  // namespace ywb::cli
