#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/verb_registry.h"
#include "ywb/weights.h"

namespace ywb::cli {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  return os.str() + "]";
}

int runWeightsInfo(const Args& a) {
  a.requireKnown({"weights", "tensors"});
  const std::string path = a.str("weights");
  if (path.empty()) return reportError(a, "weights=FILE is required (a .safetensors file)");
  const WeightsInfo info = inspectWeights(path);
  const bool list = a.boolean("tensors", false);
  if (a.json) {
    nlohmann::json j;
    j["path"] = info.path;
    j["file_size"] = info.file_size;
    j["elements"] = info.elements;
    j["tensor_count"] = info.tensors.size();
    j["metadata"] = info.metadata;
    if (list) {
      j["tensors"] = nlohmann::json::array();
      for (const auto& t : info.tensors) {
        j["tensors"].push_back(
            {{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"bytes", t.bytes}});
      }
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << info.path << ": valid safetensors, " << info.tensors.size() << " tensors, " << info.elements
            << " elements, " << info.file_size << " bytes\n";
  for (const auto& [k, v] : info.metadata) {
    const std::string shown = v.size() > 100 ? v.substr(0, 97) + "..." : v;
    std::cout << "  " << std::left << std::setw(12) << k << " " << shown << "\n";
  }
  if (list) {
    for (const auto& t : info.tensors) {
      std::cout << "  " << std::left << std::setw(48) << t.name << " " << std::setw(5) << t.dtype << " "
                << shapeText(t.shape) << "\n";
    }
  }
  return 0;
}

const RegisterVerb reg{
    {"weights info", "validate a .safetensors weights file and show its metadata and tensors",
     "weights=FILE [tensors=false] [--json]\n\n"
     "Checks the whole file (header, offsets, sizes; no tensor is decoded) and prints the\n"
     "metadata (format, names, nc, imgsz, ...) and, with tensors=true, every tensor.\n\n"
     "  weights=FILE   the .safetensors file\n"
     "  tensors=BOOL   list every tensor's name, dtype and shape (default false)\n"
     "  --json         print the result as JSON\n\n"
     "Exit status: 0 for a valid file, 1 with the problem (tensor name and what is wrong).",
     runWeightsInfo}};

}  // namespace
}  // namespace ywb::cli
