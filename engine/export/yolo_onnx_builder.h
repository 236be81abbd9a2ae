// Builds the ONNX graph of a fused DetectionModel by walking its layers (Conv/DWConv, C2f, C3, C3k2, SPPF,
// C2PSA with its attention as MatMul/Softmax/Transpose/Reshape, Upsample, Concat, Detect in both class-branch
// forms with DFL and box decoding), so the output matches DetectionModel::predict(): [N, 4+nc, A] with
// boxes xywh in input pixels and sigmoid class scores (Ultralytics' detection export).
// Static graphs keep every shape fixed and store the anchors and strides as pre-expanded constants
// ([1,2,A] and [1,4,A]); OpenCV 4.6's importer accepts nothing else (GUIDE section 7). Dynamic graphs
// (symbolic batch, height, width) derive the anchor grid from the feature maps with CumSum over the
// last axis instead (OpenCV 4.6 computes CumSum correctly only there).
// Thread rules: the model must not be used by another thread while building.
#pragma once
#include <map>
#include <string>

#include "export/onnx_graph.h"
#include "model/detection_model.h"

namespace ywb::onnx_export {

struct YoloOnnxOptions {
  int64_t batch = 1;
  int64_t height = 640, width = 640;  ///< multiples of the model's largest stride
  bool dynamic = false;               ///< symbolic batch/height/width ("batch", "height", "width")
  int64_t opset = 12;
  /// Anchor grid computed in the graph (CumSum over the maps) instead of stored constants; always on
  /// for dynamic graphs, settable for static ones to test that subgraph on its own.
  bool graph_anchors = false;
  /// Convolution weights and biases as FLOAT16 initializers (rounded like at::Tensor::to(kHalf)), each
  /// followed by Cast(to=FLOAT): fp16 storage, fp32 arithmetic and fp32 input/output.
  bool half = false;
  /// An end-to-end model's NMS-free graph: its one-to-one branches, then the tail of onnx_end2end.h; output
  /// "output0" [N, min(max_det, A), 6]. Needs DetectionModel::end2end().
  bool end2end = false;
  int64_t max_det = 300;  ///< rows of the end-to-end output (clamped to the anchor count)
  std::map<std::string, std::string> metadata;  ///< extra metadata_props
};

/// The graph of `model` (must be fused, i.e. model->fused()). Input "images" [N,3,H,W] float in [0,1],
/// output "output0" [N,4+nc,A] (the one-to-many branches), or with options.end2end [N,k,6]. Throws ywb::Error
/// for unfused models or unsupported layers.
OnnxGraph buildYoloOnnx(model::DetectionModel& model, const YoloOnnxOptions& options);

/// Number of anchors A of an h x w input for the given strides: sum over levels of (h/s) * (w/s).
int64_t anchorCount(int64_t h, int64_t w, const std::vector<int64_t>& strides);

}  // namespace ywb::onnx_export
