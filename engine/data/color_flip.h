// Colour (HSV via lookup tables) and flip augmentations. Thread rules: pure functions.
#pragma once
#include <opencv2/core.hpp>
#include <vector>

#include "core/rng.h"
#include "data/sample.h"
#include "ywb/augment.h"

namespace ywb {

/// Ultralytics' random gains r = U(-1, 1) * (hsv_h, hsv_s, hsv_v), kept as r (its tables use r, not 1 + r).
struct HsvGains {
  double h = 0, s = 0, v = 0;
  bool active = false;  ///< false when all hsv_* settings are 0 (nothing to do)
};

/// Whether HSV augmentation does anything: some hsv_* setting is not 0.
inline bool hsvEnabled(const AugmentParams& hyp) {
  return hyp.hsv_h != 0 || hyp.hsv_s != 0 || hyp.hsv_v != 0;
}

/// Draws r from the engine's Rng.
HsvGains drawHsvGains(const AugmentParams& hyp, Rng& rng);

/// Applies gains through lookup tables (see augmentHsv). Returns true, with RGB output when `to_rgb`, when
/// active; false (img untouched) otherwise.
bool applyHsv(cv::Mat& img, const HsvGains& gains, bool to_rgb);

/// Ultralytics RandomHSV (8.3.79 and later): gains g = 1 + U(-1, 1) * (hsv_h, hsv_s, hsv_v); hue shifted,
/// (h + (g_h - 1) * 180) mod 180, saturation and value scaled and clipped, through 256-entry tables. Converts
/// `img` (BGR) in place and returns true with RGB channel order when `to_rgb`; returns false and leaves img
/// untouched when all gains are 0.
bool augmentHsv(cv::Mat& img, const AugmentParams& hyp, Rng& rng, bool to_rgb);

/// The three 256-entry tables for the given gains (exposed for tests): hue shifted by (gain_h - 1) * 180.
cv::Mat hsvLut(double gain_h, double gain_s, double gain_v);
/// The same tables from r as Ultralytics computes them: hue (x + r_h * 180) mod 180, saturation and value
/// x * (r + 1), clipped, each truncated to 8 bits.
cv::Mat hsvLutFromOffsets(double r_h, double r_s, double r_v);

/// Flips the image left-right and mirrors the boxes (x -> width - x).
void flipHorizontal(cv::Mat& img, std::vector<PixelBox>& boxes);
/// Flips the image up-down and mirrors the boxes (y -> height - y).
void flipVertical(cv::Mat& img, std::vector<PixelBox>& boxes);

}  // namespace ywb
