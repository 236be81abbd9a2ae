// One training/validation sample as the augmentation pipeline produces it (torch-free).
// Thread rules: plain value types.
#pragma once
#include <time.h>
#include <array>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace ywb {

/// A box in pixel corner coordinates of some image.
struct PixelBox {
  int cls = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  float width() const { return x2 - x1; }
  float height() const { return y2 - y1; }
};

/// How a sample's image relates to its source image, for mapping predictions back (validation).
/// A point (x, y) in the original image is at (x * ratio_w + pad_x, y * ratio_h + pad_y) in the sample.
/// Meaningful for letterboxed samples; mosaic samples set mosaic = true.
struct ImageMeta {
  int index = -1;  ///< index of the image in the scanned split
  int orig_w = 0;  ///< original size (after EXIF orientation)
  int orig_h = 0;
  double ratio_w = 1;  ///< total scale from original to sample (load resize x letterbox)
  double ratio_h = 1;
  double pad_x = 0;  ///< letterbox padding, left and top, in sample pixels
  double pad_y = 0;
  bool mosaic = false;
};

/// CPU time of the calling thread in seconds: stage costs stay meaningful when other processes compete for
/// the cores (wall time would count their share too).
inline double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Sample {
  cv::Mat image;  ///< 8-bit, 3 channels, BGR or RGB as `rgb` says
  /// true when the channels are already in the order the model takes them (R, G, B), false when they are
  /// to be reversed. A sample drawn for the bgr augmentation has it toggled: the model then takes B, G, R.
  bool rgb = false;
  std::vector<PixelBox> boxes;  ///< in `image` pixels
  /// When not empty: `boxes` as centre x, y and width, height in pixels, rounded as Ultralytics rounds them
  /// (a replay of its draws, data/ultralytics_boxes.h); the loader passes these to the loss instead.
  std::vector<std::array<float, 4>> centres;
  ImageMeta meta;
  std::string path;
  double decode_s = 0;              ///< time spent loading/decoding source images
  double augment_s = 0;             ///< time spent in geometry, colour and flips
  std::vector<std::string> errors;  ///< source images that could not be loaded (replaced by grey)
};

}  // namespace ywb
