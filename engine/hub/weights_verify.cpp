// verifyOfficialWeights (ywb/pretrained.h): is this file the checkpoint its official name promises?
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/error.h"
#include "core/text.h"
#include "io/mapped_file.h"
#include "io/pt_checkpoint.h"
#include "io/zip_archive.h"
#include "ywb/pretrained.h"

namespace ywb {
namespace {

bool looksLikeHtml(const uint8_t* data, size_t size) {
  const std::string head =
      asciiLower(std::string(reinterpret_cast<const char*>(data), std::min<size_t>(size, 512)));
  return head.find("<!doctype html") != std::string::npos || head.find("<html") != std::string::npos ||
         head.find("<head") != std::string::npos || head.find("<body") != std::string::npos;
}

// The module names of a model dict's layers ([from, repeats, module, args] rows of backbone and head).
std::set<std::string> layerModules(const nlohmann::json& y, std::string* last) {
  std::set<std::string> out;
  for (const char* part : {"backbone", "head"}) {
    if (!y.contains(part) || !y[part].is_array()) continue;
    for (const auto& row : y[part]) {
      if (!row.is_array() || row.size() < 3 || !row[2].is_string()) continue;
      std::string m = row[2].get<std::string>();
      if (const auto dot = m.rfind('.'); dot != std::string::npos) m = m.substr(dot + 1);  // nn.Upsample
      out.insert(m);
      *last = m;
    }
  }
  return out;
}

// The family a model dict declares, read two ways that must agree: its layers' modules (C2f: YOLOv8; C3k2 +
// C2PSA: YOLO11, or YOLO26 when the dict says end2end, as yolo26.yaml does) and its yaml_file
// ("yolov8n.yaml", perhaps with folders; also gives the scale when the dict has no 'scale').
std::string declaredFamily(const nlohmann::json& y, const std::set<std::string>& modules,
                           char* scale_in_name) {
  const bool e2e = y.contains("end2end") && y["end2end"].is_boolean() && y["end2end"].get<bool>();
  std::string by_modules;
  if (modules.count("C2f") && !modules.count("C3k2")) by_modules = "yolov8";
  if (modules.count("C3k2") && modules.count("C2PSA")) by_modules = e2e ? "yolo26" : "yolo11";
  std::string by_file;
  if (y.contains("yaml_file") && y["yaml_file"].is_string()) {
    const std::string stem = std::filesystem::path(y["yaml_file"].get<std::string>()).stem().string();
    for (const std::string f : {"yolov8", "yolo11", "yolo26"}) {
      if (stem.rfind(f, 0) != 0 || stem.size() > f.size() + 1) continue;
      by_file = f;
      if (stem.size() == f.size() + 1 && std::string("nsmlx").find(stem.back()) != std::string::npos)
        *scale_in_name = stem.back();
    }
  }
  if (by_modules.empty()) return by_file;
  if (!by_file.empty() && by_file != by_modules) return by_modules + " (its yaml_file says " + by_file + ")";
  return by_modules;
}

}  // namespace

void verifyOfficialWeights(const std::string& path, const OfficialWeights& w) {
  const MappedFile map(path);
  const std::string what = "the download of " + w.file;
  if (map.size() == 0) fail(what, " is empty (0 bytes)");
  if (!looksLikeZip(map.data(), map.size())) {
    if (looksLikeHtml(map.data(), map.size()))
      fail(
          what, " is an HTML page (", map.size(),
          " bytes), not a checkpoint: the address answered with a web page (an error, login or proxy page?)");
    fail(what, " is not a PyTorch checkpoint (", map.size(), " bytes that do not start like a zip archive)");
  }
  // Every member's CRC-32, not only the storages the checkpoint uses: a flipped bit anywhere is a bad file.
  try {
    const ZipArchive zip(map.data(), map.size(), path);
    for (const auto& [name, e] : zip.entries()) zip.bytes(e, /*check_crc=*/true);
  } catch (const Error& e) {
    fail(what, " is damaged or incomplete (", map.size(), " bytes): ", e.what());
  }
  PtFile f;
  try {
    f = openPtFile(path);
  } catch (const Error& e) {
    fail(what, " is not a checkpoint our reader accepts: ", e.what());
  }
  const auto& meta = f.checkpoint.metadata;
  const auto y_it = meta.find("yaml");
  if (y_it == meta.end()) fail(what, ": the checkpoint declares no model (no 'yaml'): not ", w.file);
  nlohmann::json y;
  try {
    y = nlohmann::json::parse(y_it->second);
  } catch (const std::exception& e) {
    fail(what, ": its model description is not readable (", e.what(), ")");
  }
  std::string head;
  const auto modules = layerModules(y, &head);
  char scale = 0;
  const std::string family = declaredFamily(y, modules, &scale);
  if (y.contains("scale") && y["scale"].is_string() && y["scale"].get<std::string>().size() == 1)
    scale = y["scale"].get<std::string>()[0];
  if (family != w.family || (scale != 0 && scale != w.scale) || head != "Detect") {
    const std::string got = (family.empty() ? std::string("an unknown model") : family) +
                            (scale ? std::string(1, scale) : std::string()) +
                            (head.empty() || head == "Detect" ? "" : " with a " + head + " head");
    fail(what, " holds ", got, ", not the ", w.family, w.scale, " detection model its name promises");
  }
}

}  // namespace ywb
