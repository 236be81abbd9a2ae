// JPEG encode/decode with libjpeg-turbo. Thread rules: free functions, reentrant (a tjhandle per call).
#pragma once
#include <opencv2/core.hpp>
#include <string>

namespace ywb {

/// Encodes a BGR 8-bit image as JPEG bytes. Throws ywb::Error.
std::string encodeJpeg(const cv::Mat& bgr, int quality = 90);

/// Decodes JPEG bytes to BGR 8-bit. `what` names the source in error messages. Throws ywb::Error.
cv::Mat decodeJpeg(const std::string& bytes, const std::string& what);

}  // namespace ywb
