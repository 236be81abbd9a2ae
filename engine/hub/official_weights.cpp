// The registry of official detection weights, the cache folder and the base address (ywb/pretrained.h).
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "ywb/pretrained.h"

namespace ywb {
namespace {

// Parameter counts (millions) from Ultralytics' model pages (docs.ultralytics.com/models/yolov8, yolo11,
// yolo26: the COCO detection tables). Exact sizes where measured on the published v8.4.0/v8.3.0 assets
// (yolov8n 6,549,796; yolo11n 5,613,764; yolo11s 19,313,732; yolo26n 5,544,453 bytes); the others are
// estimated at 2.1 bytes a parameter (fp16 weights plus the pickle: the exact ones give 2.05-2.31).
OfficialWeights entry(const char* family, char scale, double params_m, uint64_t exact_bytes = 0) {
  OfficialWeights w;
  w.family = family;
  w.scale = scale;
  w.file = std::string(family) + scale + ".pt";
  w.params_m = params_m;
  w.size_exact = exact_bytes != 0;
  w.size_bytes = exact_bytes ? exact_bytes : uint64_t(params_m * 2.1e6);
  return w;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

const std::vector<OfficialWeights>& officialWeights() {
  static const std::vector<OfficialWeights> all = {
      entry("yolov8", 'n', 3.2, 6549796),  entry("yolov8", 's', 11.2),
      entry("yolov8", 'm', 25.9),          entry("yolov8", 'l', 43.7),
      entry("yolov8", 'x', 68.2),          entry("yolo11", 'n', 2.6, 5613764),
      entry("yolo11", 's', 9.4, 19313732), entry("yolo11", 'm', 20.1),
      entry("yolo11", 'l', 25.3),          entry("yolo11", 'x', 56.9),
      entry("yolo26", 'n', 2.4, 5544453),  entry("yolo26", 's', 9.5),
      entry("yolo26", 'm', 20.4),          entry("yolo26", 'l', 24.8),
      entry("yolo26", 'x', 55.7),
  };
  return all;
}

const OfficialWeights* findOfficialWeights(const std::string& file) {
  for (const auto& w : officialWeights())
    if (w.file == file) return &w;
  return nullptr;
}

std::string officialWeightsList() {
  std::string out;
  for (const auto& w : officialWeights()) out += (out.empty() ? "" : ", ") + w.file;
  return out;
}

bool looksLikeOfficialName(const std::string& arg) {
  // Ultralytics' names: yolov8n.pt, yolo11s-seg.pt, yolov5nu.pt, yolo26x-pose.pt ... (no folder part).
  static const std::regex pattern(R"(yolo(v?\d+)[a-z]*(-[a-z0-9]+)*\.pt)", std::regex::icase);
  return arg.find('/') == std::string::npos && std::regex_match(arg, pattern);
}

std::string weightsBaseUrl(const std::string& setting) {
  std::string base = env(kWeightsUrlEnv);
  if (base.empty()) base = setting;
  if (base.empty()) base = kDefaultWeightsUrl;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base;
}

std::string weightsCacheDir() {
  namespace fs = std::filesystem;
  if (const std::string dir = env(kWeightsDirEnv); !dir.empty()) return dir;
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return (fs::path(xdg) / "ywb" / "weights").string();
  const std::string home = env("HOME");
  return (fs::path(home.empty() ? "." : home) / ".cache" / "ywb" / "weights").string();
}

std::string cachedWeightsPath(const OfficialWeights& w) {
  return (std::filesystem::path(weightsCacheDir()) / w.file).string();
}

bool isWeightsCached(const OfficialWeights& w) {
  std::error_code ec;
  return std::filesystem::is_regular_file(cachedWeightsPath(w), ec);
}

}  // namespace ywb
