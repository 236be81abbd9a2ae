// Summary of a YOLO model built from a model YAML: the layer table and totals that `ywb model info` prints.
// Torch-free. Thread rules: modelInfo() is reentrant (it builds its own model).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

/// One row of the layer table, as Ultralytics prints it.
struct ModelLayerRow {
  int index = 0;
  std::vector<int> from;  ///< absolute indices; -1 = the network input
  std::string from_text;  ///< as written in the YAML, as Ultralytics prints it: "-1", "[-1, 6]"
  int repeats = 1;        ///< after the depth multiple
  int64_t params = 0;
  std::string module;    ///< "Conv", "C2f", "C3k2", "SPPF", "C2PSA", "nn.Upsample", "Concat", "Detect", ...
  std::string args;      ///< resolved arguments, e.g. "[3, 16, 3, 2]"
  int64_t channels = 0;  ///< output channels
  int stride = 1;        ///< output stride relative to the input
};

/// The output shape of a layer for a square imgsz x imgsz input, "CxHxW" (e.g. "256x20x20" for SPPF of a
/// YOLOv8n at 640): H = W = ceil(imgsz / stride), as the model's "same"-padded convolutions give.
std::string layerOutputShape(const ModelLayerRow& row, int imgsz);

struct ModelInfo {
  std::string name;    ///< as requested, e.g. "yolov8n.yaml"
  std::string source;  ///< "embedded:yolov8.yaml" or the file read
  std::string scale;   ///< "n" ... or empty
  std::string family;  ///< "yolov8", "yolo11", ... (from the file name), or empty
  int nc = 0;
  int imgsz = 640;
  std::vector<int> strides;
  std::vector<ModelLayerRow> layers;
  int backbone_layers = 0;  ///< layers 0 .. backbone_layers-1 are the YAML's backbone (freeze=N keeps them)
  int64_t parameters = 0;   ///< all parameters, unfused (Ultralytics' count, DFL weights included)
  int64_t gradients = 0;    ///< parameters that require a gradient
  int64_t modules = 0;      ///< submodules in the tree (LibTorch's count; differs from Ultralytics')
  /// Fused for inference: BatchNorm folded and, for an end-to-end model, the one-to-many head branches left
  /// out (Ultralytics' fused count).
  int64_t fused_parameters = 0;
  bool end2end = false;                  ///< the head has one-to-one branches (YOLO26): inference without NMS
  int reg_max = 16;                      ///< DFL bins per box side (1: no DFL)
  std::string ultralytics_modules;       ///< the module form followed: "8.4" (SPPF cv1 without SiLU) or "8.3"
  int64_t head_one2many_parameters = 0;  ///< the head's cv2/cv3 branches (+ DFL), unfused
  int64_t head_one2one_parameters = 0;   ///< the head's one2one_cv2/one2one_cv3 branches, unfused (end2end)
  double gflops_fused = 0;    ///< at imgsz x imgsz after Conv+BN fusion (the number Ultralytics prints fused)
  double gflops_unfused = 0;  ///< before fusion, BatchNorm counted as Ultralytics' profiler does
};

/// Builds the model on the CPU and summarises it. nc <= 0 keeps the YAML's nc. Throws ywb::Error.
ModelInfo modelInfo(const std::string& yaml_or_name, int nc = 0, int imgsz = 640);

/// The model names built into the engine, every family and scale: "yolov8n.yaml" ... "yolo26x.yaml".
std::vector<std::string> builtInModelNames();

/// Human-readable layer table and totals.
std::string modelInfoText(const ModelInfo& info);
/// A count with thousands separators, as the model summary prints parameters: 3,157,200.
std::string withCommas(int64_t v);
/// The same as a JSON object (one line).
std::string modelInfoJson(const ModelInfo& info);

}  // namespace ywb
