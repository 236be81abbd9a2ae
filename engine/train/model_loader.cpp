#include "train/model_loader.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "io/pt_architecture.h"
#include "io/pt_checkpoint.h"
#include "io/pt_weights.h"
#include "io/state_dict.h"
#include "model/conv.h"
#include "train/checkpoint.h"
#include "ywb/weights.h"

namespace ywb {

WeightsWithModel readWeightsWithModel(const std::string& path) {
  SafetensorsFile f = readWeightsFile(path);
  WeightsWithModel out;
  const auto& m = f.metadata;
  auto meta = [&](const char* key) -> std::string {
    auto it = m.find(key);
    if (it == m.end()) fail(path, ": metadata lacks '", key, "' (not YOLO Workbench weights?)");
    return it->second;
  };
  const std::string format = m.count("format") ? m.at("format") : "";
  if (format == kPtStateDictFormat) {
    fail(path,
         ": a plain PyTorch state dict: it names tensors but not the model they belong to. Use it as "
         "pretrained=",
         path, " with model=<yaml> (ywb train), or give an Ultralytics checkpoint");
  }
  out.modules = "8.3";  // our files that do not say were written before the key existed, with 8.3's modules
  if (format == kPtUltralyticsFormat) {
    out.modules =
        model::ultralyticsModulesOf(m.count("ultralytics_version") ? m.at("ultralytics_version") : "");
    if (m.count("ultralytics_version")) out.ultralytics_version = m.at("ultralytics_version");
    if (m.count(kPtArchitectureKey)) {
      out.pt_architecture = m.at(kPtArchitectureKey);
      const PtArchitecture arch = parsePtArchitecture(out.pt_architecture, path);
      if (!arch.modules_form.empty()) out.modules = arch.modules_form;
    }
  }
  if (format == kCheckpointFormat) {
    out.kind = "checkpoint";
    out.tensors = checkpointWeights(f, "ema.");
    out.yaml = meta("model_yaml");
  } else {
    out.kind = format == kPtUltralyticsFormat ? "ultralytics .pt" : "weights";
    out.tensors = std::move(f.tensors);
    if (format == kPtUltralyticsFormat && !m.count("yaml"))
      fail(path, ": the checkpoint's model has no 'yaml' (its configuration): it cannot be rebuilt");
    out.yaml = meta("yaml");
  }
  if (format == kPtUltralyticsFormat && !m.count("names")) {  // a model without names: class0..class{nc-1}
    const int nc = m.count("nc") ? std::stoi(m.at("nc")) : 0;
    for (int i = 0; i < nc; ++i) out.names.push_back("class" + std::to_string(i));
  } else {
    try {
      const auto names = nlohmann::json::parse(meta("names"));
      if (names.is_array()) {
        for (const auto& n : names) out.names.push_back(n.get<std::string>());
      } else {
        out.names.resize(names.size());
        for (auto it = names.begin(); it != names.end(); ++it)
          out.names.at(std::stoul(it.key())) = it.value();
      }
    } catch (const std::exception& e) {
      fail(path, ": metadata 'names' is not a JSON list of class names (", e.what(), ")");
    }
  }
  if (m.count("imgsz")) out.imgsz = std::stoi(m.at("imgsz"));
  return out;
}

NamedTensors readModelTensors(const std::string& path) {
  SafetensorsFile f = readWeightsFile(path);
  const auto it = f.metadata.find("format");
  if (it != f.metadata.end() && it->second == kCheckpointFormat) return checkpointWeights(f, "ema.");
  return std::move(f.tensors);
}

bool isWeightsPath(const std::string& model) {
  std::error_code ec;
  if (model.empty() || !std::filesystem::is_regular_file(model, ec)) return false;
  return isPtFile(model) || hasWeightsSuffix(model);
}

bool hasWeightsSuffix(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  const auto& suffixes = weightsFileSuffixes();
  return std::find(suffixes.begin(), suffixes.end(), ext) != suffixes.end();
}

void checkRebuiltAsPickled(const std::string& path, const WeightsWithModel& w, model::DetectionModelImpl& m) {
  if (w.pt_architecture.empty()) return;
  const PtArchitecture arch = parsePtArchitecture(w.pt_architecture, path);
  const std::string version =
      w.ultralytics_version.empty() ? "" : " (Ultralytics " + w.ultralytics_version + ")";
  const auto& known = model::rebuildableModuleClasses();
  std::string unknown;
  for (const auto& [cls, where] : arch.classes) {
    const std::string name = cls.substr(cls.rfind('.') + 1);
    if (std::find(known.begin(), known.end(), name) == known.end())
      unknown += (unknown.empty() ? "" : ", ") + name + " (" + (where.empty() ? "the model" : where) + ")";
  }
  for (const auto& [conv, act] : arch.other_activation)
    unknown += (unknown.empty() ? "" : ", ") + act + " as the activation of " + conv;
  if (!unknown.empty())
    fail(path, version, ": the checkpoint holds modules this version cannot build: ", unknown);
  // Every Conv's activation as pickled: SiLU unless listed as nn.Identity.
  const std::set<std::string> none(arch.no_activation.begin(), arch.no_activation.end());
  for (const auto& item : m.named_modules()) {
    const auto* conv = dynamic_cast<const model::ConvImpl*>(item.value().get());
    if (!conv) continue;
    const bool pickled_act = !none.count(item.key());
    if (conv->options.act() != pickled_act)
      fail(path, version, ": module ", item.key(), " has ",
           pickled_act ? "SiLU" : "no activation (nn.Identity)",
           " in the checkpoint, but its YAML rebuilds it ", conv->options.act() ? "with SiLU" : "without one",
           ": this architecture is not supported");
  }
}

LoadedModel loadModelWeights(const std::string& path, const at::Device& device) {
  WeightsWithModel w = readWeightsWithModel(path);
  LoadedModel out;
  out.names = std::move(w.names);
  out.imgsz = w.imgsz;
  out.kind = w.kind;
  out.model = model::buildModel(w.yaml, int(out.names.size()), w.modules);
  checkRebuiltAsPickled(path, w, *out.model);
  loadStateDict(*out.model, w.tensors, /*strict=*/true);
  out.model->to(device);
  out.model->eval();
  return out;
}

}  // namespace ywb
