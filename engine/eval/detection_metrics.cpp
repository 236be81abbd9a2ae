// DetectionMetrics: YOLO boxes in, COCO-exact mAP + Ultralytics-style P/R/F1, confusion matrix, curves out.
#include <cmath>

#include "core/error.h"
#include "eval/coco_evaluator.h"
#include "eval/confidence_curves.h"
#include "eval/confusion_accumulator.h"
#include "ywb/coco_eval.h"
#include "ywb/metrics.h"

namespace ywb {
namespace {

bool validBox(float x1, float y1, float x2, float y2) {
  return std::isfinite(x1) && std::isfinite(y1) && std::isfinite(x2) && std::isfinite(y2) && x2 >= x1 &&
         y2 >= y1;
}

}  // namespace

struct DetectionMetrics::Impl {
  int nc;
  MetricsOptions opt;
  CocoGroundTruth gt;  // image ids 0..n-1 in feeding order, categories = class indices
  std::vector<CocoDetection> dt;
  eval::ConfusionAccumulator confusion;
  int64_t images = 0, skipped = 0;

  Impl(int num_classes, MetricsOptions o)
      : nc(num_classes), opt(o), confusion(num_classes, o.confusion_conf, o.confusion_iou) {
    for (int c = 0; c < nc; ++c) gt.categories.push_back({c, std::to_string(c)});
  }
};

DetectionMetrics::DetectionMetrics(int num_classes, MetricsOptions options) {
  if (num_classes <= 0) fail("DetectionMetrics needs at least one class (got ", num_classes, ")");
  d_ = std::make_unique<Impl>(num_classes, options);
}
DetectionMetrics::~DetectionMetrics() = default;
DetectionMetrics::DetectionMetrics(DetectionMetrics&&) noexcept = default;
DetectionMetrics& DetectionMetrics::operator=(DetectionMetrics&&) noexcept = default;

int DetectionMetrics::numClasses() const {
  return d_->nc;
}
int64_t DetectionMetrics::images() const {
  return d_->images;
}

void DetectionMetrics::reset() {
  const int nc = d_->nc;
  const MetricsOptions o = d_->opt;
  d_ = std::make_unique<Impl>(nc, o);
}

void DetectionMetrics::addImage(const std::vector<GtBox>& gt, const std::vector<DetBox>& detections) {
  Impl& d = *d_;
  const int64_t image_id = d.images++;
  d.gt.image_ids.push_back(image_id);
  std::vector<GtBox> good_gt;
  std::vector<DetBox> good_dt;
  good_gt.reserve(gt.size());
  good_dt.reserve(detections.size());
  for (const GtBox& b : gt) {
    if (b.cls < 0 || b.cls >= d.nc || !validBox(b.x1, b.y1, b.x2, b.y2)) {
      ++d.skipped;
      continue;
    }
    good_gt.push_back(b);
    CocoAnnotation a;
    a.id = int64_t(d.gt.annotations.size()) + 1;  // non-zero, see CocoAnnotation::id
    a.image_id = image_id;
    a.category_id = b.cls;
    a.x = b.x1;
    a.y = b.y1;
    a.w = double(b.x2) - double(b.x1);
    a.h = double(b.y2) - double(b.y1);
    a.area = a.w * a.h;
    d.gt.annotations.push_back(a);
  }
  for (const DetBox& b : detections) {
    if (b.cls < 0 || b.cls >= d.nc || !validBox(b.x1, b.y1, b.x2, b.y2) || !std::isfinite(b.score)) {
      ++d.skipped;
      continue;
    }
    good_dt.push_back(b);
    d.dt.push_back({image_id, b.cls, b.x1, b.y1, double(b.x2) - double(b.x1), double(b.y2) - double(b.y1),
                    double(b.score)});
  }
  d.confusion.add(good_gt, good_dt);
}

void DetectionMetrics::merge(const DetectionMetrics& other) {
  Impl& d = *d_;
  const Impl& o = *other.d_;
  if (o.nc != d.nc) fail("cannot merge metrics of ", o.nc, " classes into metrics of ", d.nc, " classes");
  const int64_t offset = d.images;
  const int64_t id_offset = int64_t(d.gt.annotations.size());
  for (int64_t id : o.gt.image_ids) d.gt.image_ids.push_back(id + offset);
  for (CocoAnnotation a : o.gt.annotations) {
    a.id += id_offset;
    a.image_id += offset;
    d.gt.annotations.push_back(a);
  }
  for (CocoDetection x : o.dt) {
    x.image_id += offset;
    d.dt.push_back(x);
  }
  d.confusion.merge(o.confusion);
  d.images += o.images;
  d.skipped += o.skipped;
}

DetectionResults DetectionMetrics::compute() const {
  const Impl& d = *d_;
  DetectionResults out;
  const eval::CocoEvalResult r = eval::CocoEvaluator(d.gt, d.dt).run();
  out.coco = r.stats;
  out.map = std::max(0.0, r.stats[0]);
  out.map50 = std::max(0.0, r.stats[1]);
  out.images = d.images;
  out.instances = int64_t(d.gt.annotations.size());
  out.detections = int64_t(d.dt.size());
  out.skipped = d.skipped;
  out.confusion = d.confusion.matrix();

  const eval::ConfidenceCurves cc = eval::confidenceCurves(r.matches);
  const size_t best = size_t(cc.best);
  const int m100 = r.maxDetIndex(100);
  MetricCurves& cv = out.curves;
  cv.recall = r.params.rec_thrs;
  cv.pr.assign(size_t(d.nc), {});
  cv.pr_mean.assign(cv.recall.size(), 0.0);
  int with_gt = 0;
  std::vector<int64_t> images_with(size_t(d.nc), 0);
  {
    std::vector<int64_t> seen(size_t(d.nc), -1);
    for (const CocoAnnotation& a : d.gt.annotations) {  // annotations are in image order
      if (seen[size_t(a.category_id)] != a.image_id) ++images_with[size_t(a.category_id)];
      seen[size_t(a.category_id)] = a.image_id;
    }
  }
  for (int k = 0; k < r.K; ++k) {
    ClassMetrics cm;
    cm.cls = int(r.cat_ids[size_t(k)]);
    cm.num_gt = r.matches[size_t(k)].num_gt;
    cm.num_dt = r.cat_num_dt[size_t(k)];
    cm.ap = r.summarize(true, -1, k, 0, m100);
    cm.ap50 = r.summarize(true, 0, k, 0, m100);
    if (cm.num_gt > 0) {
      ++with_gt;
      cm.precision = cc.precision[size_t(k)][best];
      cm.recall = cc.recall[size_t(k)][best];
      cm.f1 = cc.f1[size_t(k)][best];
      std::vector<double>& pr = cv.pr[size_t(k)];
      pr.resize(cv.recall.size());
      for (int ri = 0; ri < r.R; ++ri) {
        pr[size_t(ri)] = r.precisionAt(0, ri, k, 0, m100);
        cv.pr_mean[size_t(ri)] += pr[size_t(ri)];
      }
    }
    cm.images = int64_t(images_with[size_t(k)]);
    out.per_class.push_back(cm);
  }
  if (with_gt > 0) {
    for (double& v : cv.pr_mean) v /= with_gt;
    out.precision = cc.precision_mean[best];
    out.recall = cc.recall_mean[best];
    out.f1 = cc.f1_mean[best];
    out.best_conf = cc.confidence[best];
  }
  cv.confidence = cc.confidence;
  cv.precision = cc.precision;
  cv.recall_at = cc.recall;
  cv.f1 = cc.f1;
  cv.precision_mean = cc.precision_mean;
  cv.recall_mean = cc.recall_mean;
  cv.f1_mean = cc.f1_mean;
  return out;
}

}  // namespace ywb
