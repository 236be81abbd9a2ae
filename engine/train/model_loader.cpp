#include "train/model_loader.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/safetensors.h"
#include "io/state_dict.h"
#include "train/checkpoint.h"

namespace ywb {

LoadedModel loadModelWeights(const std::string& path, const at::Device& device) {
  const SafetensorsFile f = readSafetensors(path);
  LoadedModel out;
  const auto& m = f.metadata;
  auto meta = [&](const char* key) -> std::string {
    auto it = m.find(key);
    if (it == m.end()) fail(path, ": metadata lacks '", key, "' (not YOLO Workbench weights?)");
    return it->second;
  };
  NamedTensors tensors;
  std::string yaml;
  const std::string format = m.count("format") ? m.at("format") : "";
  if (format == kCheckpointFormat) {
    out.kind = "checkpoint";
    tensors = checkpointWeights(f, "ema.");
    yaml = meta("model_yaml");
  } else {
    out.kind = "weights";
    tensors = f.tensors;
    yaml = meta("yaml");
  }
  try {
    const auto names = nlohmann::json::parse(meta("names"));
    if (names.is_array()) {
      for (const auto& n : names) out.names.push_back(n.get<std::string>());
    } else {
      out.names.resize(names.size());
      for (auto it = names.begin(); it != names.end(); ++it) out.names.at(std::stoul(it.key())) = it.value();
    }
  } catch (const std::exception& e) {
    fail(path, ": metadata 'names' is not a JSON list of class names (", e.what(), ")");
  }
  if (m.count("imgsz")) out.imgsz = std::stoi(m.at("imgsz"));
  out.model = model::buildModel(yaml, int(out.names.size()));
  loadStateDict(*out.model, tensors, /*strict=*/true);
  out.model->to(device);
  out.model->eval();
  return out;
}

}  // namespace ywb
