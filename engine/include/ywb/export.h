// Export of trained weights (a training checkpoint's EMA weights or exported weights) to safetensors and
// ONNX, each verified by reading it back with a second reader/runtime, with a short report file next to
// every exported file. What `ywb export` and the GUI's Export dialog run.
// Thread rules: blocking, reentrant calls; run them off the GUI thread.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

struct ExportOptions {
  std::string weights;                              ///< checkpoint or weights (.safetensors)
  std::vector<std::string> formats{"safetensors"};  ///< "safetensors" and/or "onnx"
  std::string out_dir;  ///< folder of the exported files; "" = the weights' folder
  std::string name;     ///< file stem; "" = the weights' stem
  int imgsz = 0;        ///< ONNX input size (square); 0 = the training size
  /// safetensors: floating-point tensors stored as fp16. ONNX: the convolution weights and biases stored
  /// as FLOAT16 initializers, each widened by a Cast node, so the graph computes in fp32 and its input and
  /// output stay float32 (unlike Ultralytics' GPU-only fp16 I/O): half the file, runs on any CPU runtime.
  bool half = false;
  bool dynamic = false;  ///< ONNX: symbolic batch, height and width
  int batch = 1;         ///< ONNX: fixed batch size of a static graph
  int opset = 12;        ///< ONNX opset (12 or 13)
  /// ONNX of an end-to-end model (YOLO26): true = its NMS-free graph, output [N, min(max_det, anchors), 6]
  /// (x1, y1, x2, y2, score, class), verified with ONNX Runtime; false = the one-to-many head,
  /// [N, 4+nc, anchors] like every other model. No effect on other models.
  bool end2end = true;
  int max_det = 300;          ///< ONNX end-to-end graph: detections per image
  bool verify = true;         ///< read every export back and compare (OpenCV DNN for ONNX)
  std::string verify_source;  ///< image or folder for the ONNX comparison; "" = a synthetic image
  int verify_images = 4;      ///< at most this many images from verify_source
};

/// A graph input or output: name, element type and shape (-1 = symbolic, named in `dim_names`).
struct ExportTensorSpec {
  std::string name;
  std::string dtype;  ///< "float32"
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;  ///< per dimension; "" where fixed
};

/// How an export was checked.
struct ExportVerification {
  bool ran = false;     ///< false when the check could not run (see note)
  bool passed = false;  ///< meaningful when ran
  std::string method;   ///< e.g. "ONNX checker + OpenCV DNN 4.6.0 vs LibTorch on 4 coco images"
  /// The second runtime that ran the file, with its version: "OpenCV DNN 4.6.0", or for end-to-end graphs
  /// "ONNX Runtime 1.30.0 (onnxruntime-node on Node.js v20.20.2)"; "" when none ran.
  std::string runtime;
  int images = 0;
  double max_abs_diff_boxes = 0;   ///< pixels
  double max_abs_diff_scores = 0;  ///< probabilities
  double box_scale = 0;            ///< largest |box coordinate| of the LibTorch output
  double tolerance = 0;            ///< the criterion's tolerance (see criterion)
  std::string criterion;           ///< in words
  std::string note;                ///< why it did not run, or what failed
  /// ONNX: the input shapes the second runtime ran ([N,3,H,W] each; a dynamic graph runs at two sizes).
  std::vector<std::vector<int64_t>> input_shapes;
  /// End-to-end ONNX ([N, k, 6] detections): how the rows matched LibTorch's, e.g. "600 compared: 598 in
  /// place, 2 reordered among equal scores, 0 at the max_det cut, 0 mismatched".
  std::string rows;
  /// End-to-end ONNX: OpenCV DNN's error when it cannot load the graph (why another runtime verified it).
  std::string opencv_error;
  /// ONNX half=true: what fp16 weights cost, i.e. LibTorch with the fp16-rounded weights vs the fp32
  /// weights on the same inputs (informational, not part of the criterion).
  bool fp16_effect_measured = false;
  double fp16_effect_boxes = 0;   ///< pixels
  double fp16_effect_scores = 0;  ///< probabilities
};

struct ExportedFile {
  std::string format;  ///< "safetensors" or "onnx"
  std::string path;
  std::string report_path;  ///< the short report written next to it (<file>.report.txt)
  uint64_t size = 0;        ///< bytes
  std::vector<ExportTensorSpec> inputs, outputs;
  int64_t parameters = 0;  ///< floating-point values stored
  std::string detail;      ///< e.g. "fp16, 355 tensors" or "opset 12, 233 nodes, fused"
  ExportVerification verification;
  double seconds = 0;
};

struct ExportReport {
  std::string source;  ///< the weights read
  std::string kind;    ///< "checkpoint" or "weights"
  std::string model;   ///< e.g. "yolov8n"
  std::vector<std::string> names;
  int imgsz = 0;
  std::vector<ExportedFile> files;
  bool allVerified() const;  ///< every file's verification ran and passed
};

/// Exports `options.weights` in each requested format. Throws ywb::Error for missing/bad input (unknown
/// format, a YAML that does not match the weights, a truncated file) and when ONNX is requested in a build
/// without ONNX. A verification that fails does not throw: it is reported (and printed by the CLI).
ExportReport exportWeights(const ExportOptions& options);

/// The report as text lines (what `ywb export` prints and the report files hold, per file).
std::string formatExportReport(const ExportReport& report);
/// The report as JSON text.
std::string exportReportJson(const ExportReport& report);

/// Whether this build can write ONNX files (the ONNX protobuf definitions were found).
bool onnxExportAvailable();
/// Whether this build can verify ONNX files with OpenCV's DNN module.
bool onnxVerificationAvailable();

}  // namespace ywb
