#include "data/ultralytics_boxes.h"

#include <algorithm>

namespace ywb {

// Every intermediate below is a float, as in NumPy's float32 arrays; the build does not contract a * b + c
// into a fused multiply-add (ISO C++ mode), so each operation rounds as NumPy's does.

std::vector<PixelBox> ultralyticsTileBoxes(const ImageRecord& r, cv::Size loaded, float ratio, int padw,
                                           int padh) {
  std::vector<PixelBox> out;
  out.reserve(r.boxes.size());
  const float w = float(loaded.width), h = float(loaded.height);
  for (const LabelBox& b : r.boxes) {
    const float hw = b.w / 2, hh = b.h / 2;
    PixelBox p;
    p.cls = b.cls;
    p.x1 = (b.cx - hw) * w * ratio + float(padw);
    p.y1 = (b.cy - hh) * h * ratio + float(padh);
    p.x2 = (b.cx + hw) * w * ratio + float(padw);
    p.y2 = (b.cy + hh) * h * ratio + float(padh);
    out.push_back(p);
  }
  return out;
}

std::vector<PixelBox> ultralyticsWarpBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes,
                                           cv::Size out, double scale) {
  float mf[6];
  for (int i = 0; i < 6; ++i) mf[i] = float(m.val[i]);
  const float w = float(out.width), h = float(out.height), s = float(scale);
  std::vector<PixelBox> kept;
  kept.reserve(boxes.size());
  for (const PixelBox& b : boxes) {
    // Corners in Ultralytics' order (x1 y1, x2 y2, x1 y2, x2 y1), each [x, y, 1] times M^T.
    const float xs[4] = {b.x1, b.x2, b.x1, b.x2}, ys[4] = {b.y1, b.y2, b.y2, b.y1};
    float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    for (int k = 0; k < 4; ++k) {
      const float x = xs[k] * mf[0] + ys[k] * mf[1] + mf[2];
      const float y = xs[k] * mf[3] + ys[k] * mf[4] + mf[5];
      x1 = k ? std::min(x1, x) : x, x2 = k ? std::max(x2, x) : x;
      y1 = k ? std::min(y1, y) : y, y2 = k ? std::max(y2, y) : y;
    }
    PixelBox a = b;
    a.x1 = std::clamp(x1, 0.f, w), a.x2 = std::clamp(x2, 0.f, w);
    a.y1 = std::clamp(y1, 0.f, h), a.y2 = std::clamp(y2, 0.f, h);
    // box_candidates(box1 = the input box times the drawn scale, box2 = the warped box), eps 1e-16.
    const float w1 = b.x2 * s - b.x1 * s, h1 = b.y2 * s - b.y1 * s;
    const float w2 = a.x2 - a.x1, h2 = a.y2 - a.y1, eps = 1e-16f;
    const float ar = std::max(w2 / (h2 + eps), h2 / (w2 + eps));
    if (w2 > 2 && h2 > 2 && w2 * h2 / (w1 * h1 + eps) > 0.1f && ar < 100) kept.push_back(a);
  }
  return kept;
}

std::vector<std::array<float, 4>> ultralyticsCentreBoxes(const std::vector<PixelBox>& boxes, bool flip_lr,
                                                         bool flip_ud, cv::Size out) {
  std::vector<std::array<float, 4>> res;
  res.reserve(boxes.size());
  for (const PixelBox& b : boxes) {
    std::array<float, 4> c = {(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2, b.x2 - b.x1, b.y2 - b.y1};
    if (flip_ud) c[1] = float(out.height) - c[1];
    if (flip_lr) c[0] = float(out.width) - c[0];
    res.push_back(c);
  }
  return res;
}

}  // namespace ywb
