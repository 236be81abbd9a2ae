#include "io/pt_architecture.h"

#include <nlohmann/json.hpp>

#include <set>

#include "core/error.h"

namespace ywb {
namespace {

std::string shortName(const std::string& cls) {
  const size_t dot = cls.rfind('.');
  return dot == std::string::npos ? cls : cls.substr(dot + 1);
}

std::string parentOf(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

PtArchitecture describePtModules(const std::vector<std::pair<std::string, std::string>>& modules) {
  PtArchitecture a;
  std::map<std::string, std::string> class_of;
  for (const auto& [path, cls] : modules) {
    a.classes.emplace(cls, path);
    class_of[path] = shortName(cls);
  }
  std::set<std::string> sppf_cv1_acts, c3k2_attn, sppf_residual;
  bool one2one = false;
  for (const auto& [path, cls] : modules) {
    const std::string parent = parentOf(path), name = shortName(cls);
    const auto pc = class_of.find(parent);
    if (endsWith(path, ".act") && pc != class_of.end() && (pc->second == "Conv" || pc->second == "DWConv")) {
      if (name == "Identity")
        a.no_activation.push_back(parent);
      else if (name != "SiLU")
        a.other_activation[parent] = cls;
      const std::string block = parentOf(parent);
      if (endsWith(parent, ".cv1") && class_of.count(block) && class_of[block] == "SPPF")
        sppf_cv1_acts.insert(name);
    }
    if (endsWith(path, ".one2one_cv2") || endsWith(path, ".one2one_cv3")) one2one = true;
    // C3k2 with attention: model.<i>.m.<j>.1 is a PSABlock inside a C3k2.
    if (name == "PSABlock") {
      const std::string c3k2 = parentOf(parentOf(parentOf(path)));
      if (class_of.count(c3k2) && class_of[c3k2] == "C3k2") c3k2_attn.insert(c3k2);
    }
  }
  if (sppf_cv1_acts.count("Identity"))
    a.modules_form = "8.4";
  else if (sppf_cv1_acts.count("SiLU"))
    a.modules_form = "8.3";
  if (a.modules_form == "8.4") a.features.push_back("SPPF cv1 without activation (Ultralytics 8.4 modules)");
  if (one2one) a.features.push_back("end-to-end head (one2one_cv2/one2one_cv3 branches, NMS-free)");
  for (const auto& [path, name] : class_of) {
    const auto dfl = class_of.find(path + ".dfl");
    if (name == "Detect" && dfl != class_of.end() && dfl->second == "Identity")
      a.features.push_back("no DFL (reg_max 1) in " + path);
  }
  for (const std::string& p : c3k2_attn) a.features.push_back("C3k2 with attention in " + p);
  return a;
}

std::string ptArchitectureJson(const PtArchitecture& a) {
  nlohmann::ordered_json j;
  j["modules_form"] = a.modules_form;
  j["features"] = a.features;
  j["no_activation"] = a.no_activation;
  j["other_activation"] = a.other_activation;
  j["classes"] = a.classes;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

PtArchitecture parsePtArchitecture(const std::string& json, const std::string& source) {
  PtArchitecture a;
  try {
    const auto j = nlohmann::json::parse(json);
    a.modules_form = j.at("modules_form").get<std::string>();
    a.features = j.at("features").get<std::vector<std::string>>();
    a.no_activation = j.at("no_activation").get<std::vector<std::string>>();
    a.other_activation = j.at("other_activation").get<std::map<std::string, std::string>>();
    a.classes = j.at("classes").get<std::map<std::string, std::string>>();
  } catch (const std::exception& e) {
    fail(source, ": metadata '", kPtArchitectureKey, "' is not what the .pt reader writes (", e.what(), ")");
  }
  return a;
}

}  // namespace ywb
