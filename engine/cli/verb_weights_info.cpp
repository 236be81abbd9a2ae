#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
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
  a.requireKnown({"weights", "model", "tensors"});
  const std::string given = weightsValue(a);
  if (given.empty()) return reportError(a, "weights=FILE is required (a .safetensors or .pt file)");
  const std::string path = resolveWeightsArg(given, a.json);
  const WeightsInfo info = inspectWeights(path);
  const bool list = a.boolean("tensors", false);
  if (a.json) {
    nlohmann::json j;
    j["path"] = info.path;
    j["container"] = info.container;
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
  const bool pt = info.container == "pytorch";
  std::cout << info.path << ": valid " << (pt ? "PyTorch checkpoint" : "safetensors") << ", "
            << info.tensors.size() << " tensors, " << info.elements << " elements, " << info.file_size
            << " bytes\n";
  if (pt && info.metadata.count("args")) {  // the training arguments users look for first
    try {
      const auto args = nlohmann::json::parse(info.metadata.at("args"));
      std::string shown;
      for (const char* k : {"model", "data", "epochs", "imgsz", "batch", "optimizer", "device"})
        if (args.contains(k)) shown += std::string(shown.empty() ? "" : " ") + k + "=" + args[k].dump();
      if (!shown.empty()) std::cout << "  trained with " << shown << "\n";
    } catch (const std::exception&) {
    }
  }
  // What the pickled modules say beyond the YAML (an Ultralytics 8.4 checkpoint: SPPF, end-to-end head, ...).
  if (const auto f = info.metadata.find(weights_key::kPtFeatures); f != info.metadata.end()) {
    std::cout << "  architecture:\n";
    for (size_t at = 0; at <= f->second.size();) {
      const size_t end = std::min(f->second.find("; ", at), f->second.size());
      std::cout << "    " << f->second.substr(at, end - at) << "\n";
      at = end + 2;
    }
  }
  for (const auto& [k, v] : info.metadata) {
    if (k == weights_key::kPtArchitecture || k == weights_key::kPtFeatures)
      continue;  // shown above / machine-readable (--json)
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
    {"weights info", "validate a .safetensors or .pt weights file and show its metadata and tensors",
     "weights=FILE [tensors=false] [--json]\n\n"
     "Checks the whole file (header, offsets, sizes; no tensor is decoded) and prints the\n"
     "metadata (format, names, nc, imgsz, ...) and, with tensors=true, every tensor.\n"
     "A PyTorch .pt checkpoint (Ultralytics' or a state dict) is read without Python and\n"
     "without running code from it: Ultralytics version, date, epoch, names, nc, model yaml,\n"
     "training arguments and the state dict (EMA model when present).\n\n"
     "  weights=FILE   the .safetensors or .pt file, or an official name (`ywb weights list`); model= too\n"
     "  tensors=BOOL   list every tensor's name, dtype and shape (default false)\n"
     "  --json         print the result as JSON\n\n"
     "Exit status: 0 for a valid file, 1 with the problem (tensor name and what is wrong).",
     runWeightsInfo}};

}  // namespace
}  // namespace ywb::cli
