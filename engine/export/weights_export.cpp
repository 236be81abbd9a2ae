#include "export/weights_export.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/state_dict.h"
#include "train/model_loader.h"
#include "ywb/version.h"
#include "ywb/weights.h"

namespace ywb::export_detail {
namespace {

nlohmann::json yamlToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = yamlToJson(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : n) j.push_back(yamlToJson(e));
    return j;
  }
  if (n.IsNull()) return nullptr;
  const std::string s = n.as<std::string>();
  if (n.Tag() == "!") return s;  // quoted in the YAML: a string even when it looks like a number
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  if (s == "null" || s == "None" || s == "~") return nullptr;
  try {
    size_t used = 0;
    const long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    const double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

}  // namespace

std::string argsAsJson(const std::string& text) {
  if (text.empty()) return "{}";
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.is_object()) return j.dump();
  } catch (const std::exception&) {
  }
  try {
    return yamlToJson(YAML::Load(text)).dump();
  } catch (const std::exception& e) {
    fail("training arguments are neither JSON nor YAML: ", e.what());
  }
}

std::map<std::string, std::string> weightsMetadata(const std::map<std::string, std::string>& src,
                                                   model::DetectionModel& model,
                                                   const std::vector<std::string>& names, int imgsz,
                                                   const std::string& source_path) {
  namespace k = weights_key;
  auto get = [&](const char* key) { return src.count(key) ? src.at(key) : std::string(); };
  std::map<std::string, std::string> m;
  m[k::kFormat] = kWeightsFormat;
  m[k::kNames] = nlohmann::json(names).dump();
  m[k::kNc] = std::to_string(model->nc());
  m[k::kImgsz] = std::to_string(imgsz);
  m[k::kYaml] = model->yaml();
  m[k::kEnd2End] = model->end2end() ? "true" : "false";
  m[k::kRegMax] = std::to_string(model->regMax());
  m[k::kArgs] = argsAsJson(get("args"));
  const std::string metrics = get(k::kMetrics);
  m[k::kMetrics] = metrics.empty() ? "{}" : metrics;
  m[k::kVersion] = kVersion;
  const std::string earlier = get(k::kSource);
  m[k::kSource] = source_path + (earlier.empty() ? "" : " (from " + earlier + ")");
  return m;
}

NamedTensors exportTensors(model::DetectionModel& model, bool half) {
  if (model->fused()) fail("safetensors export needs the unfused model (Ultralytics keys include bn.*)");
  NamedTensors out;
  for (auto& [name, t] : namedStateDict(*model)) {
    at::Tensor c = t.detach().to(at::kCPU);
    if (half && c.is_floating_point()) c = c.to(at::kHalf);
    out.emplace_back(name, c.contiguous());
  }
  return out;
}

ExportVerification verifySafetensors(const std::string& path, const NamedTensors& expected) {
  ExportVerification v;
  v.method = "re-read with the safetensors reader and loaded strictly with the inference loader";
  v.criterion = "every tensor bit-identical to the exported state dict; strict load succeeds";
  const SafetensorsFile f = readSafetensors(path);
  if (f.tensors.size() != expected.size()) {
    v.ran = true;
    v.note = "file holds " + std::to_string(f.tensors.size()) + " tensors, expected " +
             std::to_string(expected.size());
    return v;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& [name, t] = expected[i];
    const auto& [got_name, got] = f.tensors[i];
    if (got_name != name || got.scalar_type() != t.scalar_type() || !got.equal(t)) {
      v.ran = true;
      v.note = "tensor '" + name + "' differs after reading back";
      return v;
    }
  }
  const LoadedModel loaded = loadModelWeights(path, at::Device(at::kCPU));
  (void)loaded;
  v.ran = true;
  v.passed = true;
  return v;
}

}  // namespace ywb::export_detail
