// CutMix for detection (cutmix=p, Ultralytics 8.4's argument, off by default), applied after MixUp as
// Ultralytics applies it: a rectangle whose share of the image is uniform (Beta(1, 1)) and whose centre is
// any pixel is drawn three times; one of those that touches none of the sample's boxes (chosen at random;
// none: the sample is left as it is) is filled with the same rectangle of a second augmented sample, whose
// boxes with at least 10% of their area inside it are added, clipped to it. Thread rules: free functions,
// reentrant; randomness only from the Rng passed in.
#pragma once
#include <opencv2/core.hpp>
#include <optional>
#include <vector>

#include "data/sample.h"

namespace ywb {

class Rng;

/// Regions drawn per sample, and the share of a second sample's box that must lie in the region for it to
/// be pasted (Ultralytics' 0.1 for box labels).
constexpr int kCutMixAreas = 3;
constexpr double kCutMixMinInside = 0.1;

/// One region of an image of `size`: lam ~ Beta(1, 1), sides int(W sqrt(1 - lam)) and int(H sqrt(1 - lam))
/// halved (integer) each way from a centre drawn over the pixels, clipped to the image (may be empty).
cv::Rect drawCutMixArea(cv::Size size, Rng& rng);
/// Of kCutMixAreas regions drawn, one that overlaps none of `boxes` (chosen at random among them); none when
/// every one overlaps a box.
std::optional<cv::Rect> chooseCutMixArea(cv::Size size, const std::vector<PixelBox>& boxes, Rng& rng);
/// Copies `area` of `other`'s image into `s`'s (same size and type) and adds `other`'s boxes with at least
/// kCutMixMinInside of their area inside it, clipped to it. Returns the number of boxes added.
size_t pasteCutMix(Sample& s, const Sample& other, cv::Rect area);

}  // namespace ywb
