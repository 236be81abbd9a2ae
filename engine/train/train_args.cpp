#include "ywb/train_args.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/text.h"
#include "core/yaml_text.h"
#include "train/auto_batch.h"
#include "train/freeze_arg.h"
#include "train/optimizer_names.h"

namespace ywb {
namespace {

template <typename T>
ArgType typeOf();
template <>
ArgType typeOf<int>() {
  return ArgType::Int;
}
template <>
ArgType typeOf<double>() {
  return ArgType::Double;
}
template <>
ArgType typeOf<bool>() {
  return ArgType::Bool;
}
template <>
ArgType typeOf<std::string>() {
  return ArgType::String;
}

std::string toText(int v) {
  return std::to_string(v);
}
std::string toText(bool v) {
  return v ? "true" : "false";
}
std::string toText(const std::string& v) {
  return v;
}
std::string toText(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

const char* typeName(ArgType t) {
  switch (t) {
    case ArgType::Int:
      return "an integer";
    case ArgType::Double:
      return "a number";
    case ArgType::Bool:
      return "true or false";
    default:
      return "text";
  }
}

// Parses `text` into `out`, enforcing [lo, hi] for numbers. Throws ywb::Error naming key=value.
void parseInto(const std::string& key, const std::string& text, double lo, double hi, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') fail(key, "=", text, ": expected ", typeName(ArgType::Int));
  if (v < lo || v > hi)
    fail(key, "=", text, " is outside the valid range [", toText(lo), ", ", toText(hi), "]");
  out = int(v);
}
void parseInto(const std::string& key, const std::string& text, double lo, double hi, double& out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) fail(key, "=", text, ": expected a finite number");
  if (v < lo || v > hi)
    fail(key, "=", text, " is outside the valid range [", toText(lo), ", ", toText(hi), "]");
  out = v;
}
void parseInto(const std::string& key, const std::string& text, double, double, bool& out) {
  const std::optional<bool> v = switchWord(text);
  if (!v) fail(key, "=", text, ": expected true or false");
  out = *v;
}
// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool validUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (t & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// Text arguments become folder names and args.yaml entries, so they must be UTF-8 (YAML's own encoding):
// bytes of another code page would be written back as different text and the run could not be repeated.
void parseInto(const std::string& key, const std::string& text, double, double, std::string& out) {
  if (!validUtf8(text)) fail(key, ": the value is not valid UTF-8 text; save the file as UTF-8");
  out = text;
}

std::vector<std::string> choicesFor(const std::string& name) {
  if (name == "optimizer") return optimizerNames();
  if (name == "amp_dtype") return {"auto", "fp16", "bf16"};
  if (name == "on_save_error") return {"stop", "continue"};
  return {};
}

// The help text, with what the table's one line cannot hold stated by the rule's owner.
std::string helpFor(const std::string& name, const std::string& help) {
  if (name == "optimizer")
    return help + ": " + namedOptimizerList() + " (any letter case), or auto. " + autoOptimizerRule();
  if (name == "batch") {
    return help + ": a size; -1 = AutoBatch, the largest batch whose step fits " +
           std::to_string(int(std::lround(100 * kAutoBatchFraction))) +
           "% of the GPU's memory; a number between 0 and 1 (e.g. 0.70) = AutoBatch at that fraction";
  }
  return help;
}

// `batch` holds a size, -1, or (Ultralytics' third form) a fraction of the GPU's memory for AutoBatch, so
// editors offer it as a number; TrainArgs::set says which numbers are valid.
ArgType typeFor(const std::string& name, ArgType declared) {
  return name == "batch" ? ArgType::Double : declared;
}

constexpr const char* kBatchForms =
    "expected a batch size (a whole number from 1), -1 for AutoBatch, or a fraction of the GPU's memory "
    "between 0 and 1 for AutoBatch at that fraction (e.g. 0.70)";

// Ultralytics 8.3's multi_scale was a bool whose true drew sizes in [0.5, 1.5] x imgsz: the float 0.5 of 8.4
// (whose range is imgsz x (1 +/- multi_scale)); false is 0. Numbers pass through.
std::string multiScaleFromBool(const std::string& text) {
  const std::string v = asciiLower(text);
  if (v == "true" || v == "yes" || v == "on") return "0.5";
  if (v == "false" || v == "no" || v == "off") return "0";
  return text;
}

// Ultralytics' cache is True or ram (decoded images kept in memory, ours), disk (decoded images as .npy files
// beside the originals) or False. disk is not written here: the images are read each epoch, as with false,
// and the batches are the same either way.
std::string cacheFromUltralytics(const std::string& text) {
  const std::string v = asciiLower(text);
  if (v == "ram") return "true";
  if (v == "disk") return "false";
  return text;
}

}  // namespace

bool isBooleanWord(const std::string& text) {
  for (const char* b : {"true", "false", "True", "False", "TRUE", "FALSE"})
    if (text == b) return true;
  return false;
}

bool TrainArgs::set(const std::string& key, const std::string& text) {
  if (key == "batch") {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    // Decimal only (strtod would also take hex, "inf" and "nan").
    const bool number = !text.empty() && *end == '\0' && std::isfinite(v) &&
                        text.find_first_not_of("0123456789.+-eE") == std::string::npos;
    if (number && v > 0 && v < 1) {  // batch=0.70: AutoBatch at that fraction
      batch = -1;
      batch_fraction = v;
    } else {
      if (!number || v != std::floor(v) || v == 0) fail("batch=", text, ": ", kBatchForms);
      const ArgSpec& spec = trainArgSpec(key);
      double size = 0;
      parseInto(key, text, spec.min, spec.max, size);  // the table's range and message
      batch = int(size);
      batch_fraction = 0;
    }
    if (std::find(given.begin(), given.end(), key) == given.end()) given.push_back(key);
    return true;
  }
  const std::string value = key == "multi_scale" ? multiScaleFromBool(text)
                            : key == "cache"     ? cacheFromUltralytics(text)
                            : key == "optimizer" ? canonicalOptimizerName(text)
                            : key == "freeze"    ? canonicalFreezeText(text)
                                                 : text;
#define YWB_ARG_SET(T_, N_, D_, G_, LO_, HI_, H_)                                        \
  if (key == #N_) {                                                                      \
    parseInto(key, value, LO_, HI_, N_);                                                 \
    if (std::find(given.begin(), given.end(), key) == given.end()) given.push_back(key); \
    return true;                                                                         \
  }
  YWB_TRAIN_ARGS(YWB_ARG_SET)
#undef YWB_ARG_SET
  return false;
}

std::string TrainArgs::get(const std::string& key) const {
  if (key == "batch" && batch == -1 && batch_fraction > 0) {
    // Ten digits unless they would read back as another value (0.99999999999 as "1", a batch size).
    const std::string text = toText(batch_fraction);
    if (std::strtod(text.c_str(), nullptr) == batch_fraction) return text;
    std::ostringstream exact;
    exact.precision(17);
    exact << batch_fraction;
    return exact.str();
  }
#define YWB_ARG_GET(T_, N_, D_, G_, LO_, HI_, H_) \
  if (key == #N_) return toText(N_);
  YWB_TRAIN_ARGS(YWB_ARG_GET)
#undef YWB_ARG_GET
  fail("unknown training argument '", key, "'");
}

void TrainArgs::validate() const {
  for (const auto& spec : trainArgSpecs()) {
    if (spec.choices.empty()) continue;
    const std::string v = get(spec.name);
    bool ok = false;
    for (const auto& c : spec.choices) ok = ok || c == v;
    if (!ok) {
      std::string list;
      for (const auto& c : spec.choices) list += (list.empty() ? "" : ", ") + c;
      fail(spec.name, "=", v, ": expected one of ", list);
    }
  }
  if (batch == 0) fail("batch=0: ", kBatchForms);
  if (rect && ultralytics_stream >= 0) {
    fail("rect=true with ultralytics_stream=", ultralytics_stream,
         ": the replay is of Ultralytics' shuffled square batches (Mosaic draws included); use one of them");
  }
  if (imgsz % 32 != 0)
    fail("imgsz=", imgsz, " must be a multiple of the largest stride, 32 (try ", (imgsz + 31) / 32 * 32, ")");
}

const std::vector<ArgSpec>& trainArgSpecs() {
  static const std::vector<ArgSpec> specs = [] {
    std::vector<ArgSpec> v;
#define YWB_ARG_SPEC(T_, N_, D_, G_, LO_, HI_, H_) \
  {                                                \
    ArgSpec s;                                     \
    s.name = #N_;                                  \
    s.group = G_;                                  \
    s.help = helpFor(#N_, H_);                     \
    s.type = typeFor(#N_, typeOf<T_>());           \
    s.default_text = toText(T_(D_));               \
    s.min = LO_;                                   \
    s.max = HI_;                                   \
    s.choices = choicesFor(#N_);                   \
    v.push_back(s);                                \
  }
    YWB_TRAIN_ARGS(YWB_ARG_SPEC)
#undef YWB_ARG_SPEC
    return v;
  }();
  return specs;
}

const ArgSpec& trainArgSpec(const std::string& name) {
  for (const auto& spec : trainArgSpecs())
    if (spec.name == name) return spec;
  fail("no training argument named '", name, "'");
}

std::vector<std::string> loadTrainArgsYaml(const std::string& path, TrainArgs& args) {
  return loadTrainArgsYamlText(readFile(path), path, args);
}

std::vector<std::string> loadTrainArgsYamlText(const std::string& yaml, const std::string& path,
                                               TrainArgs& args) {
  const YAML::Node root = parseYamlText(yaml, path);
  if (root.IsNull()) return {};
  if (!root.IsMap()) fail(path, ": expected a mapping of argument: value");
  std::vector<std::string> unknown;
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) {
      fail(path, ":", kv.first.Mark().line + 1,
           ": each entry needs a plain argument name (found a list, a mapping or no name)");
    }
    const std::string key = kv.first.Scalar();
    const YAML::Node& val = kv.second;
    std::string text;
    if (val.IsNull()) {
      // Ultralytics writes `key: null` (e.g. `pretrained: null`): keep our default for known keys.
      bool known = false;
      for (const auto& spec : trainArgSpecs()) known = known || spec.name == key;
      if (!known) unknown.push_back(key);
      continue;
    }
    if (key == "freeze" && val.IsSequence()) {  // Ultralytics' list form: freeze: [0, 1, 2]
      text = "[";
      for (const auto& item : val) {
        if (!item.IsScalar())
          fail(path, ":", item.Mark().line + 1, ": freeze: expected a list of layer indices");
        text += (text.size() > 1 ? "," : "") + item.Scalar();
      }
      text += "]";
    } else if (!val.IsScalar()) {
      unknown.push_back(key);
      continue;
    } else {
      text = val.Scalar();
    }
    // Ultralytics' `pretrained` and `resume` are a boolean or a path, and its args.yaml writes `false` when
    // off (`true`: resume its last checkpoint / keep a .pt model's weights, which model=x.pt does here): a
    // plain true/false keeps ours off (""). Quoted text is a path.
    if ((key == "pretrained" || key == "resume") && val.Tag() == "?" && isBooleanWord(text)) continue;
    try {
      if (!args.set(key, text)) unknown.push_back(key);
    } catch (const Error& e) {
      fail(path, ":", kv.first.Mark().line + 1, ": ", e.what());
    }
  }
  return unknown;
}

std::string runValidationSplit(const std::string& path) {
  const YAML::Node root = loadYamlFile(path);
  if (!root.IsMap() || !root["split"] || root["split"].IsNull()) return "val";
  const YAML::Node split = root["split"];
  const std::string v = split.IsScalar() ? split.Scalar() : "";
  if (v != "val" && v != "test" && v != "train")
    fail(path, ":", split.Mark().line + 1, ": split=", v, ": expected val, test or train");
  return v;
}

std::string trainArgsToYaml(const TrainArgs& args) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& spec : trainArgSpecs()) {
    out << YAML::Key << spec.name << YAML::Value;
    const std::string v = args.get(spec.name);
    if (spec.name == "freeze")  // Ultralytics' int-or-list, so that it reads it back as one
      emitFreezeYaml(out, v);
    else if (spec.type == ArgType::String)
      out << YAML::DoubleQuoted << v;
    else
      out << v;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::map<std::string, std::string> changedTrainArgs(const TrainArgs& args) {
  std::map<std::string, std::string> changed;
  for (const auto& spec : trainArgSpecs()) {
    const std::string v = args.get(spec.name);
    if (v != spec.default_text) changed[spec.name] = v;
  }
  return changed;
}

}  // namespace ywb
