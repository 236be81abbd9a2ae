#include "export/torchscript_metadata.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace ywb::torchscript {
namespace {

int positive(const nlohmann::json& v, const std::string& where, const char* key) {
  if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1000000)
    fail(where, ": '", key, "' must be a positive integer, not ", v.dump());
  return v.get<int>();
}

}  // namespace

std::string configJson(const TorchScriptMetadata& m) {
  nlohmann::ordered_json j;
  j["description"] = m.description;
  j["author"] = m.author;
  j["date"] = m.date;
  j["version"] = m.version;
  j["stride"] = m.stride;
  j["task"] = m.task;
  j["batch"] = m.batch;
  j["imgsz"] = {m.height, m.width};
  nlohmann::ordered_json names = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.names.size(); ++i) names[std::to_string(i)] = m.names[i];
  j["names"] = names;
  j["channels"] = 3;
  if (m.end2end) {
    j["end2end"] = true;
    j["max_det"] = m.max_det;
  }
  if (!m.source.empty()) j["source"] = m.source;
  return j.dump();
}

TorchScriptMetadata parseConfigJson(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(where, ": not JSON (", e.what(), ")");
  }
  if (!j.is_object()) fail(where, ": not a JSON object");
  TorchScriptMetadata m;
  if (j.contains("task") && j["task"].is_string()) m.task = j["task"].get<std::string>();
  if (!j.contains("names") || !j["names"].is_object() || j["names"].empty())
    fail(where, ": no class names ('names' must be an object {\"0\": \"name\", ...})");
  m.names.assign(j["names"].size(), std::string());
  std::vector<bool> seen(m.names.size(), false);
  for (const auto& [key, value] : j["names"].items()) {
    size_t used = 0;
    long long index = -1;
    try {
      index = std::stoll(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != key.size() || index < 0 || size_t(index) >= m.names.size() || seen[size_t(index)])
      fail(where, ": 'names' key \"", key, "\" is not one of the class indices 0..", m.names.size() - 1);
    if (!value.is_string()) fail(where, ": class ", index, "'s name is not a string: ", value.dump());
    seen[size_t(index)] = true;
    m.names[size_t(index)] = value.get<std::string>();
  }
  if (!j.contains("imgsz")) fail(where, ": no 'imgsz' (the traced input size)");
  const nlohmann::json& sz = j["imgsz"];
  if (sz.is_array() && sz.size() == 2) {
    m.height = positive(sz[0], where, "imgsz");
    m.width = positive(sz[1], where, "imgsz");
  } else {
    m.height = m.width = positive(sz, where, "imgsz");
  }
  if (j.contains("stride")) m.stride = positive(j["stride"], where, "stride");
  if (j.contains("batch")) m.batch = positive(j["batch"], where, "batch");
  if (j.contains("end2end")) {
    if (!j["end2end"].is_boolean())
      fail(where, ": 'end2end' must be true or false, not ", j["end2end"].dump());
    m.end2end = j["end2end"].get<bool>();
  }
  if (j.contains("max_det") && m.end2end) m.max_det = positive(j["max_det"], where, "max_det");
  if (j.contains("args") && j["args"].is_object()) {
    const nlohmann::json& a = j["args"];
    m.nms = a.contains("nms") && a["nms"].is_boolean() && a["nms"].get<bool>();
    m.half = a.contains("half") && a["half"].is_boolean() && a["half"].get<bool>();
  }
  const auto str = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  m.description = str("description");
  m.author = str("author");
  m.date = str("date");
  m.version = str("version");
  m.source = str("source");
  return m;
}

}  // namespace ywb::torchscript
