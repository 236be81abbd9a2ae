// predict's save_crop: each detection cut out of the original image as Ultralytics saves it
// (crops/<class name>/<stem>.jpg). Thread rules: free functions, reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "ywb/metrics.h"

namespace ywb {

/// The region a detection's crop covers in a width x height image: the box grown about its centre to
/// 1.02 x its size + 10 px on each axis, corners truncated to whole pixels and clipped to the image
/// (Ultralytics' save_one_box with its defaults). May be empty for a box outside the image.
cv::Rect cropRect(const DetBox& box, int width, int height);

/// Writes each box's crop of `bgr` (JPEG, quality 95) as `crops_dir`/<class name>/<stem>.jpg (a '/' in the
/// name becomes '_', so that each class is one folder); a second crop
/// of that name gets <stem>2.jpg, then <stem>3.jpg, ... (Ultralytics' names). Boxes with an empty crop are
/// skipped. Returns the files written, in box order.
std::vector<std::string> saveCrops(const cv::Mat& bgr, const std::vector<DetBox>& boxes,
                                   const std::vector<std::string>& names, const std::string& crops_dir,
                                   const std::string& stem);

}  // namespace ywb
