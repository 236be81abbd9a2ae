// `ywb benchmark` (Ultralytics' benchmark mode): the weights exported to every format this program writes,
// each export validated on a dataset split with the same loader, NMS and metrics, so that a table shows what
// each deployable file scores, weighs and costs per image, and which formats failed and why.
// Thread rules: a blocking, reentrant call; run it off the GUI thread.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace ywb {

struct FormatBenchmarkOptions {
  std::string weights;  ///< checkpoint, safetensors or .pt
  std::string data;     ///< data.yaml
  std::string split = "val";
  int imgsz = 0;  ///< 0: the weights' training size
  int batch = 16;
  int workers = 2;
  std::string device;   ///< "", "cpu" or a CUDA index (LibTorch rows; ONNX rows run on the CPU)
  std::string out_dir;  ///< an existing folder that gets the exported files
  /// Called after each row (may be empty), so a long benchmark reports as it goes.
  std::function<void(const struct FormatBenchmarkRow&)> on_row;
};

struct FormatBenchmarkRow {
  std::string format;   ///< "weights", "safetensors", "onnx", "onnx fp16 weights", "onnx end-to-end", ...
  std::string file;     ///< the file validated
  std::string runtime;  ///< what ran it (ValReport::runtime)
  bool ok = false;
  std::string error;  ///< why the export or its validation failed (when !ok)
  double size_mb = 0;
  double map = 0, map50 = 0;  ///< COCO-exact mAP50-95 and mAP50
  double ms_inference = 0;    ///< per image, the graph or model alone
  double ms_total = 0;        ///< per image: preprocess, inference, NMS (or top-k)
  bool nms_free = false;
};

struct FormatBenchmarkReport {
  std::string weights, data;
  int imgsz = 0, images = 0;
  std::vector<FormatBenchmarkRow> rows;
};

/// Exports and validates each format; a format that fails becomes a row with its error (the others go on).
/// Throws ywb::Error when the weights themselves do not validate (missing files, class-count mismatch).
FormatBenchmarkReport benchmarkFormats(const FormatBenchmarkOptions& options);

/// The table `ywb benchmark` prints and benchmarks.txt holds: its header line, and one line per row
/// (format, status, size, mAP50-95, mAP50, inference and total ms per image, FPS, runtime; or the error).
std::string benchmarkHeader();
std::string benchmarkRowLine(const FormatBenchmarkRow& row);
/// The report as benchmarks.json holds it (and `ywb benchmark --json` prints it), `folder` the exports'.
std::string benchmarkJson(const FormatBenchmarkReport& report, const std::string& folder);
/// Writes benchmarks.txt (the header and every row's line) and benchmarks.json into `folder`, atomically.
/// Throws ywb::Error when a file cannot be written.
void writeBenchmarkFiles(const FormatBenchmarkReport& report, const std::string& folder);

}  // namespace ywb
