#include "train/detection_crops.h"

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/class_name.h"
#include "data/image_io.h"

namespace fs = std::filesystem;

namespace ywb {

cv::Rect cropRect(const DetBox& b, int width, int height) {
  constexpr double kGain = 1.02, kPad = 10;
  const double cx = (double(b.x1) + b.x2) / 2, cy = (double(b.y1) + b.y2) / 2;
  const double w = (double(b.x2) - b.x1) * kGain + kPad, h = (double(b.y2) - b.y1) * kGain + kPad;
  // Truncated towards zero (an integer conversion), then clipped to the image.
  auto clip = [](double v, int hi) { return std::clamp(int(v), 0, hi); };
  const int x1 = clip(cx - w / 2, width), x2 = clip(cx + w / 2, width);
  const int y1 = clip(cy - h / 2, height), y2 = clip(cy + h / 2, height);
  return {x1, y1, std::max(0, x2 - x1), std::max(0, y2 - y1)};
}

std::vector<std::string> saveCrops(const cv::Mat& bgr, const std::vector<DetBox>& boxes,
                                   const std::vector<std::string>& names, const std::string& crops_dir,
                                   const std::string& stem) {
  std::vector<std::string> written;
  for (const DetBox& b : boxes) {
    const cv::Rect r = cropRect(b, bgr.cols, bgr.rows);
    if (r.area() == 0) continue;
    std::string folder = className(names, b.cls);  // a name is one folder: no separators in it
    std::replace(folder.begin(), folder.end(), '/', '_');
    if (folder == "." || folder == "..") folder = std::to_string(b.cls);
    const fs::path dir = fs::path(crops_dir) / folder;
    fs::create_directories(dir);
    fs::path file = dir / (stem + ".jpg");
    for (int n = 2; fs::exists(file); ++n) file = dir / (stem + std::to_string(n) + ".jpg");
    writeFileAtomic(file.string(), encodeJpeg(bgr(r).clone(), 95));
    written.push_back(file.string());
  }
  return written;
}

}  // namespace ywb
