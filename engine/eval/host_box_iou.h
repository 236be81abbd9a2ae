// The IoU of two boxes held on the host (any types with x1, y1, x2, y2 in pixels), as Ultralytics' box_iou
// computes it: intersection / (area1 + area2 - intersection + 1e-7), in double. Thread rules: a pure
// function.
#pragma once
#include <algorithm>

namespace ywb::eval {

template <typename A, typename B>
double hostBoxIou(const A& a, const B& b) {
  const double w = std::min<double>(a.x2, b.x2) - std::max<double>(a.x1, b.x1);
  const double h = std::min<double>(a.y2, b.y2) - std::max<double>(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0.0;
  const double inter = w * h;
  const double area_a = (double(a.x2) - a.x1) * (double(a.y2) - a.y1);
  const double area_b = (double(b.x2) - b.x1) * (double(b.y2) - b.y1);
  return inter / (area_a + area_b - inter + 1e-7);
}

}  // namespace ywb::eval
