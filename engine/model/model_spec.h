// An Ultralytics-format model YAML, read and resolved for one scale: which rows, how deep, how wide.
// Torch-free. Thread rules: plain value types; loadModelSpec() is reentrant.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb::model {

/// One row of `backbone`/`head`: [from, repeats, module, args], as written in the file.
struct LayerSpec {
  int index = 0;
  std::vector<int> from;          ///< absolute layer indices (-1 resolved), or -1 = the network input
  std::string from_text;          ///< as written: "-1", "[-1, 6]"
  int repeats = 1;                ///< as written (before the depth multiple)
  std::string module;             ///< "Conv", "C2f", "SPPF", "nn.Upsample", "Concat", "Detect"
  std::vector<std::string> args;  ///< scalar arguments as written ("64", "True", "None", "nearest", "nc")
};

struct ModelSpec {
  std::string source;  ///< "embedded:yolov8.yaml" or the path read
  std::string name;    ///< what the user asked for, e.g. "yolov8n.yaml"
  std::string yaml;    ///< the model YAML text used
  std::string scale;   ///< "n", "s", ... or empty when the file has no scales
  std::string family;  ///< "yolov8", "yolo11", ... from the file name (or the YAML's yaml_file); may be empty
  double depth = 1.0, width = 1.0;
  int64_t max_channels = 1 << 30;
  int64_t nc = 80;  ///< classes: the override if given, else the file's nc
  /// Which Ultralytics release's module definitions the model follows where they differ: "8.4" (8.4.0 on:
  /// SPPF's cv1 without activation, Detect box bias 2.0) or "8.3" (SiLU there, box bias 1.0). The same YAML
  /// built by 8.3 and by 8.4 gives two functions, so the form travels with the model: YAML key
  /// `ultralytics_modules` (ours; Ultralytics ignores it), recorded in `yaml`. A YAML that does not say is
  /// built as kUltralyticsModules unless the caller knows better (a checkpoint's pickled modules, a fixture
  /// made by 8.3, weights written before the key existed).
  std::string modules;
  bool end2end = false;  ///< top-level `end2end`: the Detect head has one-to-one branches (YOLO26)
  int64_t reg_max = 16;  ///< top-level `reg_max`: DFL bins per box side; 1 = no DFL (YOLO26)
  std::vector<LayerSpec> layers;
  int backbone_layers = 0;  ///< rows of the YAML's `backbone` section: layers 0 .. backbone_layers-1

  /// Whether SPPF's cv1 has its SiLU (the 8.3 form).
  bool sppfActivation() const { return modules == "8.3"; }
  /// The initial bias of the Detect box branches (1.0 in 8.3, 2.0 from 8.4).
  double boxBiasInit() const { return modules == "8.3" ? 1.0 : 2.0; }
};

/// The module form that models built from YAML follow: Ultralytics 8.4.52, our reference.
inline constexpr const char* kUltralyticsModules = "8.4";

/// The module form of an Ultralytics release ("8.3.253" -> "8.3", "8.4.52" -> "8.4"; releases before 8.4,
/// i.e. 8.0-8.3, give "8.3"; later ones and unparsable text give kUltralyticsModules). Also accepts text
/// that contains the version, e.g. a fixture's "ultralytics 8.3.253 DetectionModel".
std::string ultralyticsModulesOf(const std::string& release);

/// Resolves `yaml_or_name` like Ultralytics: an existing file path is read from disk; otherwise a name such
/// as "yolov8n.yaml" (or "yolov8n") is looked up among the embedded files with its scale letter removed
/// ("yolov8.yaml", scale n); YAML text (containing a newline, or a flow mapping "{...}") is used as is. nc >
/// 0 overrides the file's nc. Throws ywb::Error with the available names when nothing matches.
/// `modules`: the form ("8.3"/"8.4") used when the YAML has no `ultralytics_modules` key; empty means
/// kUltralyticsModules.
ModelSpec loadModelSpec(const std::string& yaml_or_name, int nc = 0, const std::string& modules = "");

/// Names accepted by loadModelSpec() without a file, e.g. "yolov8n.yaml" ... "yolov8x.yaml".
std::vector<std::string> knownModelNames();

/// Python's round() (half to even), as Ultralytics uses for the depth multiple.
int64_t roundHalfEven(double x);
/// Smallest multiple of `divisor` >= x (Ultralytics' make_divisible).
int64_t makeDivisible(double x, int64_t divisor);

}  // namespace ywb::model
