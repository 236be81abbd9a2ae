#include "eval/confusion_accumulator.h"

#include <algorithm>

#include "core/error.h"
#include "eval/host_box_iou.h"

namespace ywb::eval {

ConfusionAccumulator::ConfusionAccumulator(int num_classes, double conf, double iou)
    : conf_(conf), iou_(iou) {
  m_.num_classes = num_classes;
  reset();
}

void ConfusionAccumulator::reset() {
  m_.counts.assign(size_t(m_.num_classes + 1) * size_t(m_.num_classes + 1), 0);
}

void ConfusionAccumulator::merge(const ConfusionAccumulator& other) {
  if (other.m_.num_classes != m_.num_classes)
    fail("confusion matrices of different class counts cannot be merged");
  for (size_t i = 0; i < m_.counts.size(); ++i) m_.counts[i] += other.m_.counts[i];
}

void ConfusionAccumulator::add(const std::vector<GtBox>& gt, const std::vector<DetBox>& detections) {
  const int bg = m_.num_classes;
  std::vector<const DetBox*> dets;
  for (const DetBox& d : detections) {
    if (d.score > conf_) dets.push_back(&d);
  }
  // Candidate pairs (gt i, det j, IoU) above the threshold, strongest first; ties keep row-major order.
  struct Pair {
    size_t g, d;
    double iou;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < gt.size(); ++i) {
    for (size_t j = 0; j < dets.size(); ++j) {
      const double v = hostBoxIou(gt[i], *dets[j]);
      if (v > iou_) pairs.push_back({i, j, v});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.iou > b.iou; });
  // Each detection keeps its best box, then each box keeps its best detection.
  std::vector<uint8_t> det_used(dets.size(), 0), gt_used(gt.size(), 0);
  std::vector<long> gt_match(gt.size(), -1);
  std::vector<uint8_t> det_matched(dets.size(), 0);
  std::vector<Pair> best_per_det;
  for (const Pair& p : pairs) {
    if (det_used[p.d]) continue;
    det_used[p.d] = 1;
    best_per_det.push_back(p);
  }
  for (const Pair& p : best_per_det) {  // still in IoU order
    if (gt_used[p.g]) continue;
    gt_used[p.g] = 1;
    gt_match[p.g] = long(p.d);
    det_matched[p.d] = 1;
  }
  for (size_t i = 0; i < gt.size(); ++i) {
    if (gt_match[i] >= 0)
      bump(dets[size_t(gt_match[i])]->cls, gt[i].cls);  // correct or confused class
    else
      bump(bg, gt[i].cls);  // missed: background
  }
  for (size_t j = 0; j < dets.size(); ++j) {
    if (!det_matched[j]) bump(dets[j]->cls, bg);  // false positive on background
  }
}

}  // namespace ywb::eval
