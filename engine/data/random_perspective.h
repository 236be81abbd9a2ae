// Ultralytics' random perspective/affine transform: matrix drawing, box transformation and the box
// candidate filter. Thread rules: pure functions (randomness comes from the caller's Rng).
#pragma once
#include <opencv2/core.hpp>
#include <vector>

#include "core/rng.h"
#include "data/sample.h"
#include "ywb/augment.h"

namespace ywb {

/// The eight uniform draws of Ultralytics' RandomPerspective, in its order.
struct PerspectiveDraws {
  double perspective_x = 0, perspective_y = 0, degrees = 0, scale = 1, shear_x = 0, shear_y = 0;
  double translate_x = 0.5, translate_y = 0.5;  ///< fractions of the output size
};

/// Draws them from `g` (any generator with uniform(lo, hi): the engine's Rng, or Mt19937 replaying
/// Ultralytics' Python generator) in Ultralytics' order: perspective x, y, rotation, scale, shear x, y,
/// translation x, y.
template <class Generator>
PerspectiveDraws drawPerspectiveParams(const AugmentParams& hyp, Generator& g) {
  PerspectiveDraws d;
  d.perspective_x = g.uniform(-hyp.perspective, hyp.perspective);
  d.perspective_y = g.uniform(-hyp.perspective, hyp.perspective);
  d.degrees = g.uniform(-hyp.degrees, hyp.degrees);
  d.scale = g.uniform(1 - hyp.scale, 1 + hyp.scale);
  d.shear_x = g.uniform(-hyp.shear, hyp.shear);
  d.shear_y = g.uniform(-hyp.shear, hyp.shear);
  d.translate_x = g.uniform(0.5 - hyp.translate, 0.5 + hyp.translate);
  d.translate_y = g.uniform(0.5 - hyp.translate, 0.5 + hyp.translate);
  return d;
}

/// M = T * S * R * P * C for an input of size `in` warped to an output of size `out`.
cv::Matx33d perspectiveMatrix(const PerspectiveDraws& d, cv::Size in, cv::Size out);

/// The same M built as Ultralytics builds it: each factor stored in float32 (NumPy) and multiplied in
/// float32. cv::warpAffine samples on a 1/32-pixel grid, so the double-precision M above picks a neighbouring
/// grid point in a few output columns; a replay of Ultralytics' draws uses this one (docs/PARITY.md, session
/// 13).
cv::Matx33d perspectiveMatrixFloat32(const PerspectiveDraws& d, cv::Size in, cv::Size out);

/// Draws M (Ultralytics order and ranges: perspective, rotation `degrees`, scale 1 +/- `scale`, `shear`
/// degrees, translation (0.5 +/- `translate`) * out). *scale receives the drawn scale factor.
cv::Matx33d drawPerspective(const AugmentParams& hyp, Rng& rng, cv::Size in, cv::Size out, double* scale);

/// Whether M has a projective part (needs warpPerspective and a divide for boxes).
bool isProjective(const cv::Matx33d& m);

/// Maps boxes through M: the four corners of each box are transformed and their bounding box taken,
/// then clipped to [0, out.width] x [0, out.height]. Classes are kept.
std::vector<PixelBox> transformBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes, cv::Size out);

/// Ultralytics' box candidate rule: after-box wider and taller than wh_thr px, aspect below ar_thr, and
/// area above area_thr of the before-box scaled by `scale`.
bool boxCandidate(const PixelBox& before, const PixelBox& after, double scale, double wh_thr = 2,
                  double ar_thr = 100, double area_thr = 0.1);

/// Applies M to boxes and keeps the candidates (transformBoxes + boxCandidate).
std::vector<PixelBox> warpBoxes(const cv::Matx33d& m, const std::vector<PixelBox>& boxes, cv::Size out,
                                double scale);

/// Warps `src` into an out-sized image with pad value 114 (warpAffine, or warpPerspective when projective).
cv::Mat warpImage(const cv::Mat& src, const cv::Matx33d& m, cv::Size out);

/// A warp that only scales and shifts (Ultralytics' default augmentation: no rotation, shear or perspective)
/// is a crop and a resize, and cv::resize runs it about 3x faster than cv::warpAffine (docs/PERFORMANCE.md,
/// "Loader"). A crop starts on a whole pixel and spans whole pixels, so the drawn matrix moves to the nearest
/// such warp: its origin by at most half a source pixel, its scale by at most half a pixel over the crop.
struct CropResize {
  cv::Rect crop;  ///< source pixels shown, in the source's coordinates; may reach past the source (pad 114)
  cv::Matx33d m;  ///< source -> output in continuous coordinates (pixel i covers [i, i + 1)), for the boxes
  double scale = 1;  ///< m's horizontal scale
};

/// The crop-and-resize nearest to `m` (source -> an `out`-sized output). False where `m` rotates, shears,
/// mirrors or is projective, or where the crop would be wider or taller than `max_side` (then warpImage).
bool cropResizeFor(const cv::Matx33d& m, cv::Size out, int max_side, CropResize* r);

/// `src`'s pixels inside `crop`, with 114 where `crop` reaches past `src` (a view when it does not).
cv::Mat cropPadded(const cv::Mat& src, cv::Rect crop);

/// The crop's image at the output size (cv::resize, bilinear; `crop_image` is cropPadded's result).
cv::Mat resizeCrop(const cv::Mat& crop_image, cv::Size out);

}  // namespace ywb
