// YOLO11's Attention (C2PSA's PSABlock) as ONNX ops that OpenCV 4.6's DNN imports, static or with symbolic
// height and width. Used by the YOLO graph builder (yolo_onnx_builder.cpp), which owns the convolutions.
// Thread rules: as buildYoloOnnx.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "export/onnx_graph.h"
#include "export/yolo_onnx_builder.h"
#include "model/attention.h"
#include "model/conv.h"

namespace ywb::onnx_export {

/// The graph builder's own ops the attention reuses: a fused Conv (+ SiLU when the module has one) and a
/// Split along an axis; each returns its output name(s).
struct AttentionOps {
  std::function<std::string(const std::string&, model::ConvImpl&, const std::string&)> conv;
  std::function<std::vector<std::string>(const std::string&, const std::string&, std::vector<int64_t>,
                                         int64_t)>
      split;
};

/// Adds the attention of `a` applied to `x` ([B,C,h,w]; h, w the static sizes, unused when dynamic) to `g`
/// and returns its output's name.
std::string attentionOnnx(OnnxGraph& g, const YoloOnnxOptions& o, const AttentionOps& ops,
                          const std::string& name, model::AttentionImpl& a, const std::string& x, int64_t h,
                          int64_t w);

}  // namespace ywb::onnx_export
