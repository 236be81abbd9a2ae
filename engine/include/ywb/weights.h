// Weights files (safetensors with Ultralytics state-dict key names) as the rest of the product sees them:
// the metadata keys every writer uses, and an inspector that validates a file without loading tensors.
// Thread rules: free functions without shared state; call from any thread.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ywb {

/// Metadata keys of the "ywb-weights/1" format. All values are strings (safetensors metadata is
/// string -> string); structured values are JSON text.
namespace weights_key {
constexpr const char* kFormat = "format";        ///< "ywb-weights/1"
constexpr const char* kNames = "names";          ///< JSON array of class names, index = class id
constexpr const char* kNc = "nc";                ///< class count, decimal
constexpr const char* kImgsz = "imgsz";          ///< training image size, decimal
constexpr const char* kYaml = "yaml";            ///< the model YAML text the weights belong to
constexpr const char* kArgs = "args";            ///< JSON object of the training arguments
constexpr const char* kMetrics = "metrics";      ///< JSON object of final metrics (COCO-exact)
constexpr const char* kVersion = "ywb_version";  ///< version of the program that wrote the file
constexpr const char* kSource = "source";        ///< where the weights came from (e.g. the converted .pt)
/// Read from an Ultralytics .pt only: what its pickled modules say beyond its YAML, readable ("; "-separated
/// features such as "SPPF cv1 without activation (Ultralytics 8.4 modules)") and as JSON for the loader.
constexpr const char* kPtFeatures = "pt_features";
constexpr const char* kPtArchitecture = "pt_architecture";
/// The head as exported (also in the YAML; here for readers that do not parse it): "true"/"false" for a
/// one-to-one (NMS-free, YOLO26) head, and the DFL bins per box side ("16"; "1" = no DFL).
constexpr const char* kEnd2End = "end2end";
constexpr const char* kRegMax = "reg_max";
}  // namespace weights_key

/// Value of weights_key::kFormat for files in this format.
constexpr const char* kWeightsFormat = "ywb-weights/1";

/// One tensor of a weights file as the header describes it.
struct WeightsTensorInfo {
  std::string name;
  std::string dtype;  ///< safetensors dtype: F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL, ...
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

/// Summary of a validated weights file (safetensors, or a PyTorch .pt checkpoint).
struct WeightsInfo {
  std::string path;
  std::string container = "safetensors";  ///< "safetensors" or "pytorch" (a .pt zip archive)
  uint64_t file_size = 0;
  std::map<std::string, std::string> metadata;
  std::vector<WeightsTensorInfo> tensors;  ///< in file order
  uint64_t elements = 0;                   ///< sum of all tensors' element counts
};

/// File name suffixes of the weights files the engine reads, for file choosers and messages: safetensors,
/// then PyTorch checkpoints (.pt, .pth). The readers decide by content as well (a zip archive is read as a
/// PyTorch checkpoint whatever its name).
const std::vector<std::string>& weightsFileSuffixes();

/// Reads and fully validates the safetensors file at `path` (header, offsets, sizes) without decoding
/// tensors; a PyTorch .pt checkpoint (zip) is opened with the restricted unpickler, its storages checked,
/// and its metadata (Ultralytics version, date, epoch, names, nc, yaml, args) reported the same way.
/// Throws ywb::Error naming the file, the tensor and the problem.
WeightsInfo inspectWeights(const std::string& path);

}  // namespace ywb
