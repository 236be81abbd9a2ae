// Whether two prediction runs found the same boxes (an exported model against its weights, or two runtimes
// of one export): per image the same count, and box by box the same class, scores within 1e-4 and corners
// within 0.01 px. Returns the number of boxes compared, or -1 with a warning saying where they differ.
#pragma once
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "ywb/inference.h"

inline int64_t sameBoxes(const ywb::PredictReport& got, const ywb::PredictReport& ref) {
  if (got.images.size() != ref.images.size()) return qWarning("image counts differ"), -1;
  int64_t boxes = 0;
  for (size_t i = 0; i < ref.images.size(); ++i) {
    const auto &g = got.images[i].boxes, &r = ref.images[i].boxes;
    if (g.size() != r.size()) return qWarning("image %zu: %zu boxes vs %zu", i, g.size(), r.size()), -1;
    for (size_t k = 0; k < r.size(); ++k, ++boxes) {
      const double d = std::max({std::fabs(g[k].x1 - r[k].x1), std::fabs(g[k].y1 - r[k].y1),
                                 std::fabs(g[k].x2 - r[k].x2), std::fabs(g[k].y2 - r[k].y2)});
      if (g[k].cls != r[k].cls || std::fabs(g[k].score - r[k].score) > 1e-4 || d > 0.01)
        return qWarning("image %zu box %zu: class %d/%d score %.6f/%.6f, corners %.4f px apart", i, k,
                        g[k].cls, r[k].cls, double(g[k].score), double(r[k].score), d),
               -1;
    }
  }
  return boxes;
}
