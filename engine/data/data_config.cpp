// data.yaml reading (Ultralytics semantics): path relative to the YAML, splits as a folder, a list of
// folders or a .txt list of images, names as a list or a map, optional nc checked against names.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "core/error.h"
#include "core/yaml_text.h"
#include "data/image_list.h"
#include "ywb/dataset.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// More classes than any public detection set names (LVIS 1,203; ImageNet-21k 21,841): an `nc` beyond this
// is a typo, and `nc` alone would make that many generated names.
constexpr long kMaxClasses = 100000;

std::string resolve(const fs::path& root, const std::string& p) {
  fs::path path(p);
  if (!path.is_absolute()) path = root / path;
  return path.lexically_normal().string();
}

std::vector<std::string> readSplit(const YAML::Node& doc, const char* key, const fs::path& root,
                                   const std::string& yaml, bool required) {
  const YAML::Node node = doc[key];
  std::vector<std::string> raw;
  if (!node || node.IsNull()) {
    if (required) fail(yaml, ": no '", key, ":' entry; add the ", key, " images folder (relative to 'path')");
    return {};
  }
  try {
    if (node.IsSequence()) {
      for (const auto& item : node) raw.push_back(item.as<std::string>());
    } else {
      raw.push_back(node.as<std::string>());
    }
  } catch (const YAML::Exception&) {
    fail(yaml, " line ", node.Mark().line + 1, ": '", key,
         ":' must be a folder, a list of folders or a .txt file");
  }
  if (raw.empty() && required) fail(yaml, ": '", key, ":' is an empty list");
  std::vector<std::string> out;
  for (const auto& r : raw) {
    const std::string p = resolve(root, r);
    std::error_code ec;
    if (!fs::exists(p, ec) && !isSourcePattern(p)) {
      fail(yaml, ": ", key, " path '", p, "' does not exist (from '", key, ": ", r,
           "', relative to the dataset root '", root.string(), "'); fix the path or create the folder");
    }
    out.push_back(p);
  }
  return out;
}

std::vector<std::string> readNames(const YAML::Node& doc, const std::string& yaml) {
  const YAML::Node node = doc["names"];
  std::vector<std::string> names;
  if (!node || node.IsNull()) return names;
  if (node.IsSequence()) {
    for (const auto& n : node) names.push_back(n.as<std::string>());
  } else if (node.IsMap()) {
    std::map<long, std::string> byId;
    for (const auto& kv : node) {
      long id = -1;
      try {
        id = kv.first.as<long>();
      } catch (const YAML::Exception&) {
        fail(yaml, " line ", kv.first.Mark().line + 1, ": class id '", kv.first.as<std::string>(),
             "' in names is not a number");
      }
      byId[id] = kv.second.as<std::string>();
    }
    long expect = 0;
    for (const auto& [id, name] : byId) {
      if (id != expect)
        fail(yaml, ": names must use class ids 0..", byId.size() - 1, " without gaps; id ", expect,
             " is missing");
      names.push_back(name);
      ++expect;
    }
  } else {
    fail(yaml, " line ", node.Mark().line + 1, ": 'names:' must be a list or a map of id: name");
  }
  return names;
}

}  // namespace

DataConfig loadDataConfig(const std::string& yaml_path) {
  std::error_code ec;
  if (!fs::is_regular_file(yaml_path, ec)) {
    if (fs::is_directory(yaml_path, ec)) {
      const fs::path inside = fs::path(yaml_path) / "data.yaml";
      fail("dataset '", yaml_path, "' is a folder; pass data=path/to/data.yaml",
           fs::is_regular_file(inside, ec) ? " (here: data=" + inside.string() + ")"
                                           : " (it holds no data.yaml: `ywb dataset init path=" + yaml_path +
                                                 " names=...` writes one for an images/labels folder)");
    }
    // A bare name (coco8.yaml) is how Ultralytics names the datasets it downloads; say that we do not.
    const bool bare = fs::path(yaml_path).parent_path().empty();
    fail("dataset file '", yaml_path, "' not found; pass data=path/to/data.yaml",
         bare ? " (Ultralytics downloads its named datasets such as coco8.yaml; ywb reads datasets from disk "
                "only: "
                "put the dataset and its data.yaml on this machine, or make one with `ywb dataset synth`)"
              : "");
  }
  const YAML::Node doc = loadYamlFile(yaml_path);
  if (!doc.IsMap()) fail(yaml_path, ": expected a YAML mapping with path/train/val/names");
  try {
    DataConfig cfg;
    cfg.yaml = yaml_path;
    const fs::path yaml_dir = fs::path(yaml_path).parent_path();
    fs::path root = yaml_dir;
    if (doc["path"] && !doc["path"].IsNull()) {
      fs::path p(doc["path"].as<std::string>());
      root = p.is_absolute() ? p : yaml_dir / p;
    }
    root = root.lexically_normal();
    if (!root.has_filename() && root.has_parent_path() && root != root.root_path()) root = root.parent_path();
    if (root.empty()) root = ".";
    if (!fs::is_directory(root, ec)) {
      fail(yaml_path, ": dataset root '", root.string(), "' (from 'path:') is not a folder");
    }
    cfg.root = root.string();
    cfg.train = readSplit(doc, "train", root, yaml_path, true);
    cfg.val = readSplit(doc, "val", root, yaml_path, true);
    cfg.test = readSplit(doc, "test", root, yaml_path, false);
    cfg.names = readNames(doc, yaml_path);
    if (doc["nc"] && !doc["nc"].IsNull()) {
      const long nc = doc["nc"].as<long>();
      if (nc <= 0) fail(yaml_path, ": nc: ", nc, " must be positive");
      if (nc > kMaxClasses)
        fail(yaml_path, ": nc: ", nc, " is more than ", kMaxClasses, " classes; check the number");
      if (cfg.names.empty()) {
        for (long i = 0; i < nc; ++i) cfg.names.push_back("class" + std::to_string(i));
      } else if (size_t(nc) != cfg.names.size()) {
        fail(yaml_path, ": nc: ", nc, " but names lists ", cfg.names.size(),
             " classes; make them agree (or drop nc)");
      }
    }
    if (cfg.names.empty()) fail(yaml_path, ": no class names; add 'names:' (a list or a map of id: name)");
    return cfg;
  } catch (const YAML::Exception& e) {
    fail(yaml_path, " line ", e.mark.line + 1, ": unexpected value (", e.msg, ")");
  }
}

}  // namespace ywb
