// YOLO-side detection metrics for validation: fed per image with pixel boxes, computed once at the end.
//
// mAP here is COCO-exact: pycocotools' 101-point interpolated precision with its greedy, score-ordered
// matching (area = box area, no crowd boxes). Ultralytics' in-training mAP uses a continuous
// interpolation and a different matching and reads higher on the same detections; the two are not the
// same number. Precision and recall follow Ultralytics' definition (per class, at the confidence where the
// smoothed mean F1 over classes is highest), computed from the COCO matches at IoU 0.50.
// Thread rules: a DetectionMetrics is used by one thread at a time; combine per-thread or per-rank
// accumulators with merge(). DetectionResults is a plain value.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ywb {

/// A ground-truth box in pixels (corners) with its class index.
struct GtBox {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  int cls = 0;
};

/// A detection in pixels (corners) with its confidence and class index.
struct DetBox {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  float score = 0;
  int cls = 0;
  int track_id = 0;  ///< the object's identity across a video's frames (ywb track, from 1); 0: not tracked
};

struct MetricsOptions {
  double confusion_conf =
      0.25;  ///< detections at or below this confidence are left out of the confusion matrix
  double confusion_iou = 0.45;  ///< a detection matches a box when IoU > this (any class, Ultralytics' rule)
};

/// Counts with rows = predicted class and columns = true class; index num_classes is "background".
/// (pred c, true c): correct; (pred c, background): false positive; (background, true c): missed box.
struct ConfusionMatrix {
  int num_classes = 0;
  std::vector<int64_t> counts;  ///< (num_classes + 1)^2, row-major [predicted][true]
  int64_t at(int predicted, int truth) const { return counts[size_t(predicted) * (num_classes + 1) + truth]; }
};

/// Per-class numbers. ap/ap50 are -1 for classes without ground truth.
struct ClassMetrics {
  int cls = 0;
  int64_t images = 0;  ///< images with at least one box of this class
  int64_t num_gt = 0;  ///< ground-truth boxes ("instances")
  int64_t num_dt = 0;  ///< detections evaluated (at most 100 per image and class, COCO's maxDets)
  double ap50 = -1;    ///< COCO AP at IoU 0.50
  double ap = -1;      ///< COCO AP at IoU 0.50:0.95
  double precision = 0, recall = 0, f1 = 0;  ///< at the confidence of maximum mean F1
};

/// Curve data for plots.
struct MetricCurves {
  std::vector<double> recall;                  ///< 101 COCO recall thresholds 0, 0.01, ..., 1
  std::vector<std::vector<double>> pr;         ///< [class][101] COCO precision at IoU 0.50; empty: no gt
  std::vector<double> pr_mean;                 ///< [101] mean over classes with ground truth
  std::vector<double> confidence;              ///< 1000 points 0..1
  std::vector<std::vector<double>> precision;  ///< [class][1000] vs confidence; empty: no gt
  std::vector<std::vector<double>> recall_at;  ///< [class][1000] vs confidence; empty: no gt
  std::vector<std::vector<double>> f1;         ///< [class][1000] vs confidence; empty: no gt
  std::vector<double> precision_mean, recall_mean, f1_mean;  ///< [1000] means over classes with gt
};

struct DetectionResults {
  /// COCO-exact AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl (-1 = undefined).
  std::array<double, 12> coco{};
  double map50 = 0;      ///< coco[1], or 0 when undefined
  double map = 0;        ///< coco[0] (mAP50-95), or 0 when undefined
  double precision = 0;  ///< mean over classes with ground truth, at best_conf (Ultralytics' "P")
  double recall = 0;     ///< likewise ("R")
  double f1 = 0;
  double best_conf = 0;                 ///< confidence of maximum smoothed mean F1
  std::vector<ClassMetrics> per_class;  ///< every class index 0..num_classes-1
  ConfusionMatrix confusion;
  MetricCurves curves;
  int64_t images = 0;
  int64_t instances = 0;   ///< ground-truth boxes
  int64_t detections = 0;  ///< detections given
  int64_t skipped =
      0;  ///< boxes with a class outside [0, num_classes) or non-finite coordinates; not counted
  /// modelFitness() of these results.
  double fitness() const;
};

/// Model-selection fitness: the one rule behind `best` weights, patience and the Runs tab's best epoch.
/// A weighted sum of (P, R, mAP50, mAP50-95) with weights (0, 0, 0, 1), i.e. mAP50-95, as Ultralytics 8.3
/// selects (its checkpoints store `fitness` equal to `metrics/mAP50-95(B)`; YOLOv5 weighted 0.1/0.9).
double modelFitness(double precision, double recall, double map50, double map50_95);

/// Whether an epoch of fitness `fitness` replaces the best so far (`have_best` false: none yet). Ties keep
/// the earlier epoch.
inline bool isNewBest(double fitness, bool have_best, double best_fitness) {
  return !have_best || fitness > best_fitness;
}

class DetectionMetrics {
 public:
  explicit DetectionMetrics(int num_classes, MetricsOptions options = {});
  ~DetectionMetrics();
  DetectionMetrics(DetectionMetrics&&) noexcept;
  DetectionMetrics& operator=(DetectionMetrics&&) noexcept;

  /// Adds one image: its ground truth and its detections (after NMS), both in the same pixel frame.
  void addImage(const std::vector<GtBox>& gt, const std::vector<DetBox>& detections);
  /// Appends another accumulator's images (same num_classes, else ywb::Error).
  void merge(const DetectionMetrics& other);
  void reset();
  int numClasses() const;
  int64_t images() const;
  /// Computes every metric from the images so far. Cost: one COCO evaluation.
  DetectionResults compute() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> d_;
};

/// One line for logs, e.g. "P 0.712 R 0.654 mAP50 0.701 mAP50-95 0.482 (COCO-exact)".
std::string metricsSummaryLine(const DetectionResults& r);

/// The validation table in Ultralytics' layout (Class, Images, Instances, P, R, mAP50, mAP50-95), an "all"
/// row then one row per class with ground truth; a header note says the mAP is COCO-exact.
/// `names[c]` names class c (missing names print the index).
std::string metricsTable(const DetectionResults& r, const std::vector<std::string>& names);

/// The results as JSON: coco stats (named), P/R/F1/best_conf, per-class rows, confusion matrix, and with
/// `curves` the PR and confidence curves.
std::string detectionResultsJson(const DetectionResults& r, const std::vector<std::string>& names,
                                 bool curves = false);

}  // namespace ywb
