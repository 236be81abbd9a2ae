// Text and JSON views of DetectionResults.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/class_name.h"
#include "ywb/coco_eval.h"
#include "ywb/metrics.h"

namespace ywb {

std::string metricsSummaryLine(const DetectionResults& r) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "P %.3f R %.3f mAP50 %.3f mAP50-95 %.3f (COCO-exact)", r.precision, r.recall,
                r.map50, r.map);
  return buf;
}

std::string metricsTable(const DetectionResults& r, const std::vector<std::string>& names) {
  // Ultralytics prints "%22s" + "%11i" * 2 + "%11.3g" * 4.
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%22s%11s%11s%11s%11s%11s%11s\n", "Class", "Images", "Instances", "Box(P",
                "R", "mAP50", "mAP50-95)");
  out += buf;
  std::snprintf(buf, sizeof buf, "%22s%11lld%11lld%11.3g%11.3g%11.3g%11.3g\n", "all",
                static_cast<long long>(r.images), static_cast<long long>(r.instances), r.precision, r.recall,
                r.map50, r.map);
  out += buf;
  for (const ClassMetrics& c : r.per_class) {
    if (c.num_gt == 0) continue;
    std::snprintf(buf, sizeof buf, "%22s%11lld%11lld%11.3g%11.3g%11.3g%11.3g\n",
                  className(names, c.cls).c_str(), static_cast<long long>(c.images),
                  static_cast<long long>(c.num_gt), c.precision, c.recall, c.ap50, c.ap);
    out += buf;
  }
  out +=
      "mAP is COCO-exact (pycocotools: 101-point, greedy matching); Ultralytics' in-training mAP reads "
      "higher.\n";
  return out;
}

std::string detectionResultsJson(const DetectionResults& r, const std::vector<std::string>& names,
                                 bool curves) {
  nlohmann::ordered_json j;
  j["metric"] = "COCO-exact mAP (pycocotools COCOeval); P/R at the confidence of maximum mean F1";
  nlohmann::ordered_json coco;
  for (size_t i = 0; i < 12; ++i) coco[cocoStatNames()[i]] = r.coco[i];
  j["coco"] = coco;
  j["precision"] = r.precision;
  j["recall"] = r.recall;
  j["f1"] = r.f1;
  j["best_conf"] = r.best_conf;
  j["mAP50"] = r.map50;
  j["mAP50-95"] = r.map;
  j["fitness"] = r.fitness();
  j["images"] = r.images;
  j["instances"] = r.instances;
  j["detections"] = r.detections;
  j["skipped"] = r.skipped;
  auto rows = nlohmann::ordered_json::array();
  for (const ClassMetrics& c : r.per_class) {
    rows.push_back({{"class", c.cls},
                    {"name", className(names, c.cls)},
                    {"images", c.images},
                    {"instances", c.num_gt},
                    {"detections", c.num_dt},
                    {"precision", c.precision},
                    {"recall", c.recall},
                    {"f1", c.f1},
                    {"mAP50", c.ap50},
                    {"mAP50-95", c.ap}});
  }
  j["per_class"] = rows;
  j["confusion"] = {{"rows", "predicted (last = background)"},
                    {"columns", "true (last = background)"},
                    {"size", r.confusion.num_classes + 1},
                    {"counts", r.confusion.counts}};
  if (curves) {
    const MetricCurves& c = r.curves;
    j["curves"] = {{"recall", c.recall},
                   {"pr", c.pr},
                   {"pr_mean", c.pr_mean},
                   {"confidence", c.confidence},
                   {"precision", c.precision},
                   {"recall_at", c.recall_at},
                   {"f1", c.f1},
                   {"precision_mean", c.precision_mean},
                   {"recall_mean", c.recall_mean},
                   {"f1_mean", c.f1_mean}};
  }
  return j.dump(2);
}

}  // namespace ywb
