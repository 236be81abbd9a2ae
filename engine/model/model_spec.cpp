#include "model/model_spec.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <regex>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/yaml_text.h"
#include "model/embedded_models.h"

namespace ywb::model {
namespace {

namespace fs = std::filesystem;

std::string stemOf(const std::string& name) {
  return fs::path(name).stem().string();
}

// "yolov8n.yaml" -> ("yolov8.yaml", "n"); names without a scale letter come back unchanged.
std::pair<std::string, std::string> unifyName(const std::string& name) {
  std::string file = fs::path(name).filename().string();
  if (fs::path(file).extension() != ".yaml" && fs::path(file).extension() != ".yml") file += ".yaml";
  static const std::regex scaled(R"(^(.*\d+)([nslmx])(\.ya?ml)$)");
  std::smatch m;
  if (std::regex_match(file, m, scaled)) return {m[1].str() + m[3].str(), m[2].str()};
  return {file, ""};
}

// Ultralytics guesses the scale from the file stem: "yolov8s-custom.yaml" -> "s".
std::string guessScale(const std::string& path) {
  static const std::regex re(R"(yolo[v]?\d+([nslmx]))");
  std::smatch m;
  const std::string stem = stemOf(path);
  return std::regex_search(stem, m, re) ? m[1].str() : std::string();
}

// "yolo11n-custom.yaml" -> "yolo11"; "yolov8s.yaml" -> "yolov8"; "" when the name says nothing.
std::string familyOf(const std::string& path) {
  static const std::regex re(R"((yolo[v]?\d+))");
  std::smatch m;
  const std::string stem = stemOf(path);
  return std::regex_search(stem, m, re) ? m[1].str() : std::string();
}

std::vector<int> parseFrom(const YAML::Node& n, int index, const std::string& where) {
  std::vector<int> raw;
  if (n.IsSequence()) {
    for (const auto& v : n) raw.push_back(v.as<int>());
  } else {
    raw.push_back(n.as<int>());
  }
  std::vector<int> out;
  for (int f : raw) {
    const int abs = f < 0 ? index + f : f;
    if (abs >= index || (abs < 0 && index != 0))
      fail(where, ": 'from' ", f, " of layer ", index, " does not name an earlier layer");
    out.push_back(index == 0 ? -1 : abs);
  }
  return out;
}

void parseSection(const YAML::Node& rows, const std::string& section, const std::string& where,
                  std::vector<LayerSpec>* layers) {
  if (!rows || !rows.IsSequence())
    fail(where, ": '", section, "' must be a list of [from, repeats, module, args]");
  for (const auto& row : rows) {
    LayerSpec l;
    l.index = int(layers->size());
    const std::string at = where + " " + section + " row " + std::to_string(l.index);
    if (!row.IsSequence() || row.size() != 4) fail(at, ": expected [from, repeats, module, args]");
    try {
      l.from = parseFrom(row[0], l.index, at);
      if (!row[0].IsSequence()) l.from_text = row[0].as<std::string>();
      if (row[0].IsSequence()) {
        l.from_text = "[";
        for (size_t i = 0; i < row[0].size(); ++i)
          l.from_text += (i ? ", " : "") + row[0][i].as<std::string>();
        l.from_text += "]";
      }
      l.repeats = row[1].as<int>();
      l.module = row[2].as<std::string>();
      if (!row[3].IsSequence()) fail(at, ": args must be a list");
      for (const auto& a : row[3]) {
        if (!a.IsScalar()) fail(at, ": nested argument lists are not supported");
        l.args.push_back(a.as<std::string>());
      }
    } catch (const YAML::Exception& e) {
      fail(at, ": ", e.what());
    }
    if (l.repeats < 1) fail(at, ": repeats must be >= 1");
    layers->push_back(std::move(l));
  }
}

// A top-level value of the model YAML as T, or an error naming the key, its text and its line ("end2end:
// 'sometimes' is not true/false (line 10)") instead of yaml-cpp's bare "bad conversion".
template <class T>
T topValue(const YAML::Node& node, const std::string& key, const std::string& where, const char* expected) {
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    const int line = node.Mark().line + 1;
    if (node.IsScalar())
      fail(where, ": ", key, ": '", node.Scalar(), "' is not ", expected, " (line ", line, ")");
    fail(where, ": ", key, ": expected ", expected, ", found ", node.IsSequence() ? "a list" : "a mapping",
         " (line ", line, ")");
  }
}

}  // namespace

int64_t roundHalfEven(double x) {
  return static_cast<int64_t>(std::nearbyint(x));
}

int64_t makeDivisible(double x, int64_t divisor) {
  return static_cast<int64_t>(std::ceil(x / double(divisor))) * divisor;
}

std::vector<std::string> knownModelNames() {
  std::vector<std::string> names;
  for (const auto& m : embeddedModels()) {
    const YAML::Node root = YAML::Load(m.text);
    const std::string file = m.name;
    const auto dot = file.rfind('.');
    if (root["scales"] && root["scales"].IsMap()) {
      for (const auto& kv : root["scales"])
        names.push_back(file.substr(0, dot) + kv.first.as<std::string>() + file.substr(dot));
    } else {
      names.push_back(file);
    }
  }
  return names;
}

std::string ultralyticsModulesOf(const std::string& release) {
  static const std::regex re(R"((\d+)\.(\d+)\.\d+)");
  std::smatch m;
  if (!std::regex_search(release, m, re)) return kUltralyticsModules;
  const int major = std::stoi(m[1].str()), minor = std::stoi(m[2].str());
  return major < 8 || (major == 8 && minor <= 3) ? "8.3" : "8.4";
}

namespace {

// Adds `key: value` to YAML text, as a first line or, for one flow mapping ("{...}", a .pt's yaml dict as
// JSON), as its first entry.
std::string withTopLevelKey(const std::string& yaml, const std::string& key, const std::string& value) {
  const size_t first = yaml.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && yaml[first] == '{') {
    const bool empty = yaml.find_first_not_of(" \t\r\n", first + 1) == yaml.find('}', first);
    return yaml.substr(0, first + 1) + "\"" + key + "\": \"" + value + "\"" + (empty ? "" : ", ") +
           yaml.substr(first + 1);
  }
  return key + ": '" + value + "'\n" + yaml;
}

}  // namespace

ModelSpec loadModelSpec(const std::string& yaml_or_name, int nc, const std::string& modules) {
  ModelSpec spec;
  spec.name = yaml_or_name;
  std::string requested_scale;
  std::error_code ec;
  const size_t first = yaml_or_name.find_first_not_of(" \t\r");
  // YAML text: several lines, or one flow mapping such as the JSON a .pt checkpoint's yaml dict becomes.
  if (yaml_or_name.find('\n') != std::string::npos ||
      (first != std::string::npos && yaml_or_name[first] == '{')) {
    spec.source = "text";
    spec.yaml = yaml_or_name;
    spec.name = "model.yaml";
  } else if (!yaml_or_name.empty() && fs::is_regular_file(yaml_or_name, ec)) {
    spec.source = yaml_or_name;
    spec.yaml = readFile(yaml_or_name);
    requested_scale = guessScale(yaml_or_name);
  } else {
    const auto [file, scale] = unifyName(yaml_or_name);
    const EmbeddedModel* m = findEmbeddedModel(file);
    if (!m) {
      std::string known;
      for (const auto& n : knownModelNames()) known += (known.empty() ? "" : ", ") + n;
      fail("model '", yaml_or_name, "' is neither a file nor a built-in model; built-in: ", known,
           " (or give the path of an Ultralytics-format model YAML)");
    }
    spec.source = std::string("embedded:") + m->name;
    spec.yaml = m->text;
    requested_scale = scale;
  }
  const std::string where = "model '" + spec.name + "'";
  // A file's syntax errors name the file, line and column; YAML text's name the model.
  const YAML::Node root = parseYamlText(spec.yaml, spec.source == yaml_or_name ? yaml_or_name : where);
  if (!root.IsMap()) fail(where, ": expected a YAML mapping with backbone and head");
  try {
    spec.nc = nc > 0 ? nc : (root["nc"] ? topValue<int64_t>(root["nc"], "nc", where, "a whole number") : 80);
    if (root["depth_multiple"])
      spec.depth = topValue<double>(root["depth_multiple"], "depth_multiple", where, "a number");
    if (root["width_multiple"])
      spec.width = topValue<double>(root["width_multiple"], "width_multiple", where, "a number");
    const YAML::Node scales = root["scales"];
    if (scales && scales.IsMap() && scales.size() > 0) {
      // A top-level `scale:` (what Ultralytics stores in checkpoints, and what yaml() records) picks the
      // scale when the name did not.
      if (requested_scale.empty() && root["scale"] && root["scale"].IsScalar())
        requested_scale = root["scale"].as<std::string>();
      if (requested_scale.empty())
        requested_scale = scales.begin()->first.as<std::string>();  // as Ultralytics
      const YAML::Node s = scales[requested_scale];
      if (!s || !s.IsSequence() || s.size() != 3)
        fail(where, ": scale '", requested_scale,
             "' is not in the file's scales (or is not [depth, width, max_channels])");
      spec.scale = requested_scale;
      // Record the scale in the text so the YAML alone rebuilds this model (checkpoints store yaml()).
      if (!root["scale"]) spec.yaml = "scale: " + requested_scale + "\n" + spec.yaml;
      const std::string key = "scales: " + requested_scale;
      spec.depth = topValue<double>(s[0], key + " depth", where, "a number");
      spec.width = topValue<double>(s[1], key + " width", where, "a number");
      spec.max_channels = topValue<int64_t>(s[2], key + " max_channels", where, "a whole number");
    }
  } catch (const YAML::Exception& e) {
    fail(where, ": ", e.what());
  }
  if (spec.nc < 1) fail(where, ": nc must be >= 1");
  try {
    if (root["end2end"] && !root["end2end"].IsNull())
      spec.end2end = topValue<bool>(root["end2end"], "end2end", where, "true/false");
    if (root["reg_max"])
      spec.reg_max = topValue<int64_t>(root["reg_max"], "reg_max", where, "a whole number");
    spec.modules = root["ultralytics_modules"] ? root["ultralytics_modules"].as<std::string>()
                   : modules.empty()           ? std::string(kUltralyticsModules)
                                               : modules;
  } catch (const YAML::Exception& e) {
    fail(where, ": ", e.what());
  }
  if (spec.reg_max < 1 || spec.reg_max > 64) fail(where, ": reg_max must be 1..64, got ", spec.reg_max);
  if (spec.modules != "8.3" && spec.modules != "8.4")
    fail(where, ": ultralytics_modules must be '8.3' or '8.4', got '", spec.modules, "'");
  if (!root["ultralytics_modules"])
    spec.yaml = withTopLevelKey(spec.yaml, "ultralytics_modules", spec.modules);
  spec.family = familyOf(spec.source.rfind("embedded:", 0) == 0 ? spec.source.substr(9) : spec.name);
  if (spec.family.empty() && root["yaml_file"] && root["yaml_file"].IsScalar())
    spec.family = familyOf(root["yaml_file"].as<std::string>());
  // Record the file name in the text, as Ultralytics' yaml dict does, so a model rebuilt from yaml() alone (a
  // checkpoint, a run record) still knows its family and scale.
  if (!spec.family.empty() && !root["yaml_file"]) {
    const bool is_file =
        spec.name.find('\n') == std::string::npos && spec.name.find('{') == std::string::npos;
    const std::string file = is_file ? stemOf(spec.name) + ".yaml" : spec.family + spec.scale + ".yaml";
    spec.yaml = "yaml_file: " + file + "\n" + spec.yaml;
  }
  parseSection(root["backbone"], "backbone", where, &spec.layers);
  spec.backbone_layers = int(spec.layers.size());
  parseSection(root["head"], "head", where, &spec.layers);
  return spec;
}

}  // namespace ywb::model
