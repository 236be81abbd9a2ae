// Image decoding and encoding: JPEG with libjpeg-turbo (DCT scaling, EXIF orientation), other formats
// with OpenCV's codecs when this build has them. Thread rules: free functions, reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>

namespace ywb {

/// Encodes a BGR 8-bit image as JPEG bytes. Throws ywb::Error.
std::string encodeJpeg(const cv::Mat& bgr, int quality = 90);

/// Decodes JPEG bytes to BGR 8-bit (no EXIF handling). `what` names the source in errors. Throws ywb::Error.
cv::Mat decodeJpeg(const std::string& bytes, const std::string& what);

/// EXIF orientation (1..8) of JPEG bytes; 1 when absent or unreadable.
int jpegExifOrientation(const std::string& bytes);

/// Rotates/flips an image decoded as stored so it shows upright for EXIF `orientation` (1..8).
cv::Mat applyExifOrientation(const cv::Mat& img, int orientation);

/// Size and validity of an image file, as the dataset scan records it.
struct ImageProbe {
  bool ok = false;
  int width = 0;  ///< after EXIF orientation
  int height = 0;
  std::string reason;  ///< why it is unusable, when !ok
};

/// Reads and fully verifies an image file (decodes it, at 1/8 scale for JPEG). Never throws.
ImageProbe probeImage(const std::string& path);

/// Decodes an image file upright (EXIF), resized so its longest side is `max_side` when max_side > 0
/// (Ultralytics load_image semantics: linear interpolation, aspect kept, sides rounded up). JPEG is decoded
/// as OpenCV's imread does (libjpeg-turbo's accurate integer DCT and fancy upsampling), so the pixels match
/// Ultralytics'; `fast` = true additionally allows DCT scaling (decoding at M/8 size) when the target is at
/// least 2x smaller, which is much faster on large photos but not pixel-identical.
/// `orig_w`/`orig_h` receive the upright original size. Throws ywb::Error naming the file.
cv::Mat loadImage(const std::string& path, int max_side, bool fast = true, int* orig_w = nullptr,
                  int* orig_h = nullptr);

/// Size an image of w x h gets from loadImage(max_side): longest side = max_side, other side rounded up.
cv::Size resizedShape(int w, int h, int max_side);

/// Whether this build can decode non-JPEG formats (PNG, BMP, TIFF, WebP) through OpenCV.
bool canDecodeNonJpeg();

/// Encodes BGR as PNG bytes when canDecodeNonJpeg(); throws ywb::Error otherwise.
std::string encodePng(const cv::Mat& bgr);

}  // namespace ywb
