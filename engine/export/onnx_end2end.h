// The NMS-free tail of an end-to-end (YOLO26) ONNX graph: from the decoded one-to-one output [N, 4+nc, A]
// to detections [N, k, 6] = x1, y1, x2, y2, score, class, computed as eval::end2endDetections does (the top k
// anchors by their best class score, then the top k (anchor, class) pairs among them, highest first), with
// k = min(max_det, A) and no confidence threshold (every row is kept; a consumer filters by score).
// Operators: Transpose, Split, Sub/Add/Div, Concat, ReduceMax, TopK, GatherND (batch_dims 1), GatherElements,
// Div/Mod on int64, Cast, Reshape (and Shape/Slice/Min for a symbolic anchor count). OpenCV 4.6's DNN
// importer has no TopK; ONNX Runtime runs it (export/onnx_runtime_node.h). Thread rules: free function; the
// graph is used by one thread at a time.
#pragma once
#include <string>

#include "export/onnx_graph.h"

namespace ywb::onnx_export {

/// Appends the tail to `g` after `decoded` ([N, 4+nc, A]: boxes xywh in pixels, sigmoid scores) and returns
/// the name of its output [N, k, 6]. `anchors` is A for a static graph (k = min(max_det, A) is then a
/// constant) or -1 for a symbolic one (k computed in the graph). `opset` decides Split's form (12 / 13).
std::string end2endTail(OnnxGraph& g, const std::string& decoded, int64_t nc, int64_t anchors,
                        int64_t max_det, int64_t opset);

/// k of the tail for A anchors: min(max_det, A), as eval::end2endDetections clamps it.
int64_t end2endRows(int64_t anchors, int64_t max_det);

}  // namespace ywb::onnx_export
