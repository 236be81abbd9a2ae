#include "train/detection_labels.h"

#include <cstdio>
#include <filesystem>

namespace ywb {

std::string yoloLabelText(const std::vector<DetBox>& boxes, int width, int height, bool with_conf) {
  std::string txt;
  const float w = float(width), h = float(height);
  for (const DetBox& b : boxes) {
    char line[160];
    std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f", b.cls, (b.x1 + b.x2) / 2 / w,
                  (b.y1 + b.y2) / 2 / h, (b.x2 - b.x1) / w, (b.y2 - b.y1) / h);
    txt += line;
    if (with_conf) {
      std::snprintf(line, sizeof line, " %.5f", b.score);
      txt += line;
    }
    if (b.track_id > 0) txt += " " + std::to_string(b.track_id);
    txt += "\n";
  }
  return txt;
}

std::string UniqueStems::operator()(const std::string& path) {
  const std::string base = std::filesystem::path(path).stem().string();
  std::string stem = base;
  for (int n = 2; !used_.insert(stem).second; ++n) stem = base + "_" + std::to_string(n);
  return stem;
}

}  // namespace ywb
