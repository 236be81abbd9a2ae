#include "eval/coco_ids.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace fs = std::filesystem;

namespace ywb::eval {
namespace {

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Python's `int(stem) if stem.isnumeric() else stem`; a stem too long for int64 stays a string.
nlohmann::ordered_json imageId(const std::string& stem) {
  const bool digits =
      !stem.empty() && stem.size() <= 18 && stem.find_first_not_of("0123456789") == std::string::npos;
  if (digits) return std::stoll(stem);
  return stem;
}

double rounded(double v, double scale) {
  return std::round(v * scale) / scale;
}

}  // namespace

const std::vector<int64_t>& coco80To91() {
  static const std::vector<int64_t> ids = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 13, 14, 15, 16, 17,
                                           18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 31, 32, 33, 34, 35, 36,
                                           37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53,
                                           54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 67, 70, 72, 73,
                                           74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90};
  return ids;
}

bool isCocoSplit(const std::vector<std::string>& sources) {
  if (sources.size() != 1) return false;
  std::error_code ec;
  const std::string p = fs::absolute(sources[0], ec).lexically_normal().generic_string();
  return p.find("coco") != std::string::npos &&
         (endsWith(p, "/val2017.txt") || endsWith(p, "/test-dev2017.txt"));
}

std::vector<int64_t> cocoCategoryIds(bool coco_split, size_t num_classes) {
  if (coco_split && num_classes <= coco80To91().size()) {
    return {coco80To91().begin(), coco80To91().begin() + std::ptrdiff_t(num_classes)};
  }
  std::vector<int64_t> ids(num_classes);
  for (size_t c = 0; c < num_classes; ++c) ids[c] = int64_t(c) + 1;
  return ids;
}

std::string ultralyticsResultsJson(const std::vector<ImageDetections>& detections,
                                   const std::vector<int64_t>& category_ids) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& img : detections) {
    const fs::path path(img.path);
    const nlohmann::ordered_json id = imageId(path.stem().string());
    const std::string file = path.filename().string();
    for (const auto& b : img.boxes) {
      if (b.cls < 0 || size_t(b.cls) >= category_ids.size()) {
        fail("save_json: detection of class ", b.cls, " in ", img.path, " but the model has ",
             category_ids.size(), " classes");
      }
      nlohmann::ordered_json d;
      d["image_id"] = id;
      d["file_name"] = file;
      d["category_id"] = category_ids[size_t(b.cls)];
      d["bbox"] = {rounded(b.x1, 1e3), rounded(b.y1, 1e3), rounded(double(b.x2) - b.x1, 1e3),
                   rounded(double(b.y2) - b.y1, 1e3)};
      d["score"] = rounded(b.score, 1e5);
      out.push_back(std::move(d));
    }
  }
  return out.dump();
}

}  // namespace ywb::eval
