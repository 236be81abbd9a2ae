#include "data/color_flip.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace ywb {

cv::Mat hsvLutFromOffsets(double r_h, double r_s, double r_v) {
  cv::Mat lut(1, 256, CV_8UC3);
  auto* p = lut.ptr<cv::Vec3b>();
  const double hue_shift = r_h * 180.0, gain_s = r_s + 1.0, gain_v = r_v + 1.0;
  for (int x = 0; x < 256; ++x) {
    // Ultralytics since 8.3.79 shifts the hue (it scaled it before): numpy (x + r * 180) % 180, made
    // non-negative, then astype(uint8) truncates; clip(x * (r + 1), 0, 255).astype(uint8) likewise.
    double h = std::fmod(x + hue_shift, 180.0);
    if (h < 0) h += 180.0;
    p[x][0] = uint8_t(int(h));
    p[x][1] = uint8_t(int(std::clamp(x * gain_s, 0.0, 255.0)));
    p[x][2] = uint8_t(int(std::clamp(x * gain_v, 0.0, 255.0)));
  }
  return lut;
}

cv::Mat hsvLut(double gain_h, double gain_s, double gain_v) {
  return hsvLutFromOffsets(gain_h - 1.0, gain_s - 1.0, gain_v - 1.0);
}

HsvGains drawHsvGains(const AugmentParams& hyp, Rng& rng) {
  HsvGains g;
  if (!hsvEnabled(hyp)) return g;
  g.h = rng.uniform(-1, 1) * hyp.hsv_h;
  g.s = rng.uniform(-1, 1) * hyp.hsv_s;
  g.v = rng.uniform(-1, 1) * hyp.hsv_v;
  g.active = true;
  return g;
}

bool applyHsv(cv::Mat& img, const HsvGains& g, bool to_rgb) {
  if (!g.active) return false;
  const cv::Mat lut = hsvLutFromOffsets(g.h, g.s, g.v);
  uint8_t tab[3][256];
  for (int x = 0; x < 256; ++x) {
    for (int c = 0; c < 3; ++c) tab[c][x] = lut.at<cv::Vec3b>(0, x)[c];
  }
  cv::Mat hsv;
  cv::cvtColor(img, hsv, cv::COLOR_BGR2HSV);
  // A plain loop with three tables is about twice as fast as cv::LUT with a 3-channel table.
  for (int y = 0; y < hsv.rows; ++y) {
    uint8_t* p = hsv.ptr<uint8_t>(y);
    for (int x = 0; x < hsv.cols; ++x, p += 3) {
      p[0] = tab[0][p[0]];
      p[1] = tab[1][p[1]];
      p[2] = tab[2][p[2]];
    }
  }
  cv::cvtColor(hsv, img, to_rgb ? cv::COLOR_HSV2RGB : cv::COLOR_HSV2BGR);
  return true;
}

bool augmentHsv(cv::Mat& img, const AugmentParams& hyp, Rng& rng, bool to_rgb) {
  return applyHsv(img, drawHsvGains(hyp, rng), to_rgb);
}

void flipHorizontal(cv::Mat& img, std::vector<PixelBox>& boxes) {
  cv::flip(img, img, 1);
  const float w = float(img.cols);
  for (auto& b : boxes) {
    const float x1 = w - b.x2, x2 = w - b.x1;
    b.x1 = x1, b.x2 = x2;
  }
}

void flipVertical(cv::Mat& img, std::vector<PixelBox>& boxes) {
  cv::flip(img, img, 0);
  const float h = float(img.rows);
  for (auto& b : boxes) {
    const float y1 = h - b.y2, y2 = h - b.y1;
    b.y1 = y1, b.y2 = y2;
  }
}

}  // namespace ywb
