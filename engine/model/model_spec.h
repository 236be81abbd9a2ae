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
  std::vector<LayerSpec> layers;
};

/// Resolves `yaml_or_name` like Ultralytics: an existing file path is read from disk; otherwise a name such
/// as "yolov8n.yaml" (or "yolov8n") is looked up among the embedded files with its scale letter removed
/// ("yolov8.yaml", scale n); YAML text (containing a newline, or a flow mapping "{...}") is used as is. nc >
/// 0 overrides the file's nc. Throws ywb::Error with the available names when nothing matches.
ModelSpec loadModelSpec(const std::string& yaml_or_name, int nc = 0);

/// Names accepted by loadModelSpec() without a file, e.g. "yolov8n.yaml" ... "yolov8x.yaml".
std::vector<std::string> knownModelNames();

/// Python's round() (half to even), as Ultralytics uses for the depth multiple.
int64_t roundHalfEven(double x);
/// Smallest multiple of `divisor` >= x (Ultralytics' make_divisible).
int64_t makeDivisible(double x, int64_t divisor);

}  // namespace ywb::model
