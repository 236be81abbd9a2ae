#include "data/letterbox.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace ywb {

LetterboxInfo letterboxGeometry(cv::Size in, cv::Size target, bool auto_mode, bool scaleup, int stride) {
  LetterboxInfo li;
  double r = std::min(double(target.height) / in.height, double(target.width) / in.width);
  if (!scaleup) r = std::min(r, 1.0);
  li.ratio = r;
  const int uw = int(std::lrint(in.width * r)), uh = int(std::lrint(in.height * r));
  double dw = target.width - uw, dh = target.height - uh;
  if (auto_mode) {
    dw = std::fmod(dw, stride);
    dh = std::fmod(dh, stride);
  }
  dw /= 2;
  dh /= 2;
  // Python rounds half to even (lrint); Ultralytics rounds (d - 0.1) for left/top and (d + 0.1) for
  // right/bottom, so odd pads put the extra pixel on the right/bottom.
  li.left = int(std::lround(dw - 0.1));
  li.top = int(std::lround(dh - 0.1));
  const int right = int(std::lround(dw + 0.1)), bottom = int(std::lround(dh + 0.1));
  li.out = {uw + li.left + right, uh + li.top + bottom};
  return li;
}

cv::Mat letterbox(const cv::Mat& img, cv::Size target, bool auto_mode, bool scaleup, int stride,
                  LetterboxInfo* info) {
  const LetterboxInfo li = letterboxGeometry(img.size(), target, auto_mode, scaleup, stride);
  const cv::Size unpad(int(std::lrint(img.cols * li.ratio)), int(std::lrint(img.rows * li.ratio)));
  cv::Mat out(li.out, img.type(), cv::Scalar::all(114));
  cv::Mat roi = out(cv::Rect(li.left, li.top, unpad.width, unpad.height));
  if (unpad != img.size()) {
    cv::resize(img, roi, unpad, 0, 0, cv::INTER_LINEAR);
  } else {
    img.copyTo(roi);
  }
  if (info) *info = li;
  return out;
}

}  // namespace ywb
