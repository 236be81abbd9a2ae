// The public COCO evaluation entry points and pycocotools-style printing.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "eval/coco_evaluator.h"
#include "ywb/coco_eval.h"

namespace ywb {

const std::array<const char*, 12>& cocoStatNames() {
  static const std::array<const char*, 12> names{"AP",  "AP50", "AP75",  "APs", "APm", "APl",
                                                 "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"};
  return names;
}

CocoStats evaluateCoco(const CocoGroundTruth& gt, const std::vector<CocoDetection>& detections) {
  return guarded("COCO evaluation", [&] {
    eval::CocoEvaluator evaluator(gt, detections);
    const eval::CocoEvalResult r = evaluator.run();
    CocoStats s;
    s.stats = r.stats;
    s.num_images = r.num_images;
    s.num_gt = r.num_gt;
    s.num_crowd = r.num_crowd;
    s.num_dt = r.num_dt;
    s.skipped_gt = r.skipped_gt;
    s.skipped_dt = r.skipped_dt;
    s.area_from_box = gt.area_from_box;
    const int m100 = r.maxDetIndex(100);
    for (int k = 0; k < r.K; ++k) {
      CocoCategoryStats c;
      c.id = r.cat_ids[size_t(k)];
      for (const auto& cat : gt.categories) {
        if (cat.id == c.id) {
          c.name = cat.name;
          break;
        }
      }
      c.num_gt = r.matches[size_t(k)].num_gt;
      c.num_dt = r.cat_num_dt[size_t(k)];
      c.ap = r.summarize(true, -1, k, 0, m100);
      c.ap50 = r.summarize(true, 0, k, 0, m100);
      c.ap75 = r.summarize(true, 5, k, 0, m100);
      c.ar100 = r.summarize(false, -1, k, 0, m100);
      s.per_category.push_back(std::move(c));
    }
    return s;
  });
}

CocoStats evaluateCocoFiles(const std::string& gt_json, const std::string& dt_json) {
  const CocoGroundTruth gt = loadCocoGroundTruth(gt_json);
  const std::vector<CocoDetection> dt = loadCocoDetections(dt_json, &gt);
  try {
    return evaluateCoco(gt, dt);
  } catch (const Error& e) {
    fail(dt_json, " against ", gt_json, ": ", e.what());
  }
}

std::string cocoStatsText(const CocoStats& s) {
  // pycocotools: ' {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}'
  struct Line {
    bool ap;
    const char* iou;
    const char* area;
    int max_dets;
  };
  static const Line lines[12] = {{true, "0.50:0.95", "all", 100},     {true, "0.50", "all", 100},
                                 {true, "0.75", "all", 100},          {true, "0.50:0.95", "small", 100},
                                 {true, "0.50:0.95", "medium", 100},  {true, "0.50:0.95", "large", 100},
                                 {false, "0.50:0.95", "all", 1},      {false, "0.50:0.95", "all", 10},
                                 {false, "0.50:0.95", "all", 100},    {false, "0.50:0.95", "small", 100},
                                 {false, "0.50:0.95", "medium", 100}, {false, "0.50:0.95", "large", 100}};
  std::string out;
  char buf[160];
  for (size_t i = 0; i < 12; ++i) {
    const Line& l = lines[i];
    std::snprintf(buf, sizeof buf, " %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3d ] = %0.3f\n",
                  l.ap ? "Average Precision" : "Average Recall", l.ap ? "(AP)" : "(AR)", l.iou, l.area,
                  l.max_dets, s.stats[i]);
    out += buf;
  }
  return out;
}

std::string cocoStatsJson(const CocoStats& s) {
  nlohmann::ordered_json j;
  j["metric"] = "COCO bbox, computed as pycocotools COCOeval";
  j["stats_order"] = cocoStatNames();
  j["stats"] = s.stats;
  nlohmann::ordered_json named;
  for (size_t i = 0; i < 12; ++i) named[cocoStatNames()[i]] = s.stats[i];
  j["named"] = named;
  j["images"] = s.num_images;
  j["ground_truth"] = s.num_gt;
  j["crowd"] = s.num_crowd;
  j["detections"] = s.num_dt;
  j["skipped_ground_truth"] = s.skipped_gt;
  j["skipped_detections"] = s.skipped_dt;
  j["area_from_box"] = s.area_from_box;
  auto cats = nlohmann::ordered_json::array();
  for (const auto& c : s.per_category) {
    cats.push_back({{"id", c.id},
                    {"name", c.name},
                    {"gt", c.num_gt},
                    {"dt", c.num_dt},
                    {"AP", c.ap},
                    {"AP50", c.ap50},
                    {"AP75", c.ap75},
                    {"AR100", c.ar100}});
  }
  j["per_category"] = cats;
  return j.dump(2);
}

}  // namespace ywb
