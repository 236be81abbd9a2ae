// Renders one synthetic detection image (shapes on a textured background) and its boxes.
// Thread rules: pure function of its inputs; call from any thread.
#pragma once
#include <cstdint>
#include <opencv2/core.hpp>
#include <vector>

namespace ywb {

struct SynthBox {
  int cls = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // pixels, inside the image
};

struct SynthImage {
  cv::Mat bgr;
  std::vector<SynthBox> boxes;
};

constexpr int kSynthClasses = 6;

/// Renders the image for `seed`; its longest side is `imgsz`, the other side in [0.75, 1] x imgsz.
SynthImage renderSynthImage(uint64_t seed, int imgsz, int max_objects);

}  // namespace ywb
