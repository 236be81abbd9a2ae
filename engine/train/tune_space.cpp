// The search space of `ywb tune` (ywb/tune.h): the default one, reading one from YAML, and its checks against
// the training arguments' own ranges (trainArgSpec, the one owner of what a value may be).
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/yaml_text.h"
#include "train/tune_files.h"

namespace ywb {

const std::vector<TuneDimension>& defaultTuneSpace() {
  // Ultralytics' published default space (its hyperparameter-tuning guide and Tuner reference): bounds, and
  // a gain for momentum. copy_paste is left out: this trainer does not take it (ultralyticsArgumentNote).
  static const std::vector<TuneDimension> space = {
      {"lr0", 1e-5, 1e-1},          {"lrf", 0.0001, 0.1},        {"momentum", 0.7, 0.98, 0.3},
      {"weight_decay", 0.0, 0.001}, {"warmup_epochs", 0.0, 5.0}, {"warmup_momentum", 0.0, 0.95},
      {"box", 1.0, 20.0},           {"cls", 0.2, 4.0},           {"dfl", 0.4, 6.0},
      {"hsv_h", 0.0, 0.1},          {"hsv_s", 0.0, 0.9},         {"hsv_v", 0.0, 0.9},
      {"degrees", 0.0, 45.0},       {"translate", 0.0, 0.9},     {"scale", 0.0, 0.95},
      {"shear", 0.0, 10.0},         {"perspective", 0.0, 0.001}, {"flipud", 0.0, 1.0},
      {"fliplr", 0.0, 1.0},         {"bgr", 0.0, 1.0},           {"mosaic", 0.0, 1.0},
      {"mixup", 0.0, 1.0},          {"cutmix", 0.0, 1.0},        {"close_mosaic", 0.0, 10.0}};
  return space;
}

void checkTuneSpace(const std::vector<TuneDimension>& space, const std::string& source) {
  if (space.empty()) fail(source, ": the search space is empty (name at least one argument)");
  for (size_t i = 0; i < space.size(); ++i) {
    const TuneDimension& d = space[i];
    for (size_t j = 0; j < i; ++j)
      if (space[j].name == d.name) fail(source, ": '", d.name, "' is listed twice");
    const ArgSpec& spec = [&]() -> const ArgSpec& {
      try {
        return trainArgSpec(d.name);
      } catch (const Error&) {
        fail(source, ": '", d.name, "' is not a training argument");
      }
    }();
    if (spec.type != ArgType::Double && spec.type != ArgType::Int)
      fail(source, ": '", d.name, "' is not a number (only numeric arguments can be tuned)");
    if (!std::isfinite(d.lo) || !std::isfinite(d.hi) || d.lo > d.hi)
      fail(source, ": '", d.name, "': bounds [", d.lo, ", ", d.hi, "] are not lo <= hi");
    if (d.lo < spec.min || d.hi > spec.max)
      fail(source, ": '", d.name, "': bounds [", d.lo, ", ", d.hi, "] leave its valid range [", spec.min,
           ", ", spec.max, "]");
    if (!std::isfinite(d.gain) || d.gain < 0) fail(source, ": '", d.name, "': gain ", d.gain, " is negative");
  }
}

std::vector<TuneDimension> loadTuneSpace(const std::string& path) {
  return loadTuneSpaceText(readFile(path), path);
}

std::vector<TuneDimension> loadTuneSpaceText(const std::string& yaml, const std::string& path) {
  const YAML::Node root = parseYamlText(yaml, path);
  if (!root.IsMap()) fail(path, ": expected a mapping of argument: [lo, hi] or [lo, hi, gain]");
  std::vector<TuneDimension> space;
  for (const auto& kv : root) {
    const int line = kv.first.Mark().line + 1;
    if (!kv.first.IsScalar()) fail(path, ":", line, ": each entry needs a plain argument name");
    TuneDimension d;
    d.name = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (!v.IsSequence() || (v.size() != 2 && v.size() != 3))
      fail(path, ":", line, ": ", d.name, ": expected [lo, hi] or [lo, hi, gain]");
    try {
      d.lo = v[0].as<double>();
      d.hi = v[1].as<double>();
      if (v.size() == 3) d.gain = v[2].as<double>();
    } catch (const YAML::Exception&) {
      fail(path, ":", line, ": ", d.name, ": bounds and gain must be numbers");
    }
    space.push_back(d);
  }
  checkTuneSpace(space, path);
  return space;
}

}  // namespace ywb
