// Letterbox resize (Ultralytics LetterBox semantics: pad value 114, optional stride-multiple `auto` mode).
// Thread rules: pure functions.
#pragma once
#include <opencv2/core.hpp>

namespace ywb {

struct LetterboxInfo {
  double ratio = 1;  ///< scale applied to the input
  int left = 0;      ///< padding added on the left
  int top = 0;       ///< padding added on the top
  cv::Size out;      ///< output size
};

/// Computes the letterbox of an input of size `in` into `target` (w, h) without touching pixels.
/// auto_mode pads only to the next multiple of `stride`; scaleup=false never enlarges.
LetterboxInfo letterboxGeometry(cv::Size in, cv::Size target, bool auto_mode, bool scaleup, int stride = 32);

/// Applies letterboxGeometry() to an image (linear resize, pad 114). Always returns a new buffer.
cv::Mat letterbox(const cv::Mat& img, cv::Size target, bool auto_mode, bool scaleup, int stride,
                  LetterboxInfo* info);

}  // namespace ywb
