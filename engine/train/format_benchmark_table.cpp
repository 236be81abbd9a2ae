// The benchmark's table and JSON (ywb/format_benchmark.h): one format for the command line, its files and the
// GUI's Export tab.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "ywb/format_benchmark.h"

namespace ywb {
namespace {

nlohmann::ordered_json rowJson(const FormatBenchmarkRow& r) {
  nlohmann::ordered_json j{{"format", r.format}, {"ok", r.ok}, {"file", r.file}};
  if (!r.ok) {
    j["error"] = r.error;
    return j;
  }
  j["runtime"] = r.runtime;
  j["size_mb"] = r.size_mb;
  j["mAP50-95"] = r.map;
  j["mAP50"] = r.map50;
  j["ms_inference"] = r.ms_inference;
  j["ms_total"] = r.ms_total;
  j["nms_free"] = r.nms_free;
  return j;
}

}  // namespace

std::string benchmarkHeader() {
  return "Format                           Status Size (MB)  mAP50-95   mAP50  Inference (ms/im) "
         "Total (ms/im)    FPS   Runtime";
}

std::string benchmarkRowLine(const FormatBenchmarkRow& r) {
  char line[512];
  if (!r.ok) {
    std::snprintf(line, sizeof line, "%-32s %-6s %s", r.format.c_str(), "failed", r.error.c_str());
  } else {
    std::snprintf(line, sizeof line, "%-32s %-6s %9.1f %9.4f %7.4f %14.1f %10.1f %7.1f   %s",
                  r.format.c_str(), "ok", r.size_mb, r.map, r.map50, r.ms_inference, r.ms_total,
                  r.ms_total > 0 ? 1000.0 / r.ms_total : 0.0, r.runtime.c_str());
  }
  return line;
}

std::string benchmarkJson(const FormatBenchmarkReport& rep, const std::string& folder) {
  nlohmann::ordered_json j{{"weights", rep.weights},
                           {"data", rep.data},
                           {"imgsz", rep.imgsz},
                           {"images", rep.images},
                           {"folder", folder}};
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : rep.rows) j["rows"].push_back(rowJson(r));
  return j.dump(2) + "\n";
}

void writeBenchmarkFiles(const FormatBenchmarkReport& rep, const std::string& folder) {
  std::string text = benchmarkHeader() + "\n";
  for (const auto& r : rep.rows) text += benchmarkRowLine(r) + "\n";
  writeFileAtomic(folder + "/benchmarks.json", benchmarkJson(rep, folder));
  writeFileAtomic(folder + "/benchmarks.txt", text);
}

}  // namespace ywb
