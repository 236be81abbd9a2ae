#include "data/cut_mix.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "data/sample_builder.h"

namespace ywb {
namespace {

float overlap(float a1, float a2, float b1, float b2) {
  return std::max(0.f, std::min(a2, b2) - std::max(a1, b1));
}

float areaInside(const PixelBox& b, cv::Rect r) {
  return overlap(b.x1, b.x2, float(r.x), float(r.x + r.width)) *
         overlap(b.y1, b.y2, float(r.y), float(r.y + r.height));
}

}  // namespace

cv::Rect drawCutMixArea(cv::Size size, Rng& rng) {
  const double side = std::sqrt(1.0 - betaSymmetric(rng, 1.0));
  const int cut_w = int(size.width * side), cut_h = int(size.height * side);
  const int cx = int(rng.uniformInt(0, size.width - 1)), cy = int(rng.uniformInt(0, size.height - 1));
  const int x1 = std::clamp(cx - cut_w / 2, 0, size.width), x2 = std::clamp(cx + cut_w / 2, 0, size.width);
  const int y1 = std::clamp(cy - cut_h / 2, 0, size.height), y2 = std::clamp(cy + cut_h / 2, 0, size.height);
  return {x1, y1, x2 - x1, y2 - y1};
}

std::optional<cv::Rect> chooseCutMixArea(cv::Size size, const std::vector<PixelBox>& boxes, Rng& rng) {
  std::vector<cv::Rect> free;
  for (int k = 0; k < kCutMixAreas; ++k) {
    const cv::Rect a = drawCutMixArea(size, rng);
    const bool touches =
        std::any_of(boxes.begin(), boxes.end(), [&](const PixelBox& b) { return areaInside(b, a) > 0; });
    if (!touches) free.push_back(a);
  }
  if (free.empty()) return std::nullopt;
  return free[size_t(rng.uniformInt(0, int64_t(free.size()) - 1))];
}

size_t pasteCutMix(Sample& s, const Sample& other, cv::Rect area) {
  if (s.image.size() != other.image.size() || s.image.type() != other.image.type())
    fail("CutMix needs two samples of one size and type");
  area &= cv::Rect(0, 0, s.image.cols, s.image.rows);
  if (area.empty()) return 0;
  other.image(area).copyTo(s.image(area));
  size_t added = 0;
  for (const PixelBox& b : other.boxes) {
    const float whole = b.width() * b.height();
    if (!(whole > 0) || areaInside(b, area) < kCutMixMinInside * whole) continue;
    PixelBox c = b;
    c.x1 = std::clamp(c.x1, float(area.x), float(area.x + area.width));
    c.x2 = std::clamp(c.x2, float(area.x), float(area.x + area.width));
    c.y1 = std::clamp(c.y1, float(area.y), float(area.y + area.height));
    c.y2 = std::clamp(c.y2, float(area.y), float(area.y + area.height));
    s.boxes.push_back(c);
    ++added;
  }
  return added;
}

}  // namespace ywb
