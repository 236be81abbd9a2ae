#include "export/onnx_end2end.h"

#include <algorithm>

#include "core/error.h"

namespace ywb::onnx_export {
namespace {

using G = OnnxGraph;

// Split along `axis`: the sizes are an attribute up to opset 12 and an int64 input from opset 13 on.
std::vector<std::string> splitAxis(OnnxGraph& g, int64_t opset, const std::string& name, const std::string& x,
                                   std::vector<int64_t> sizes, int64_t axis) {
  const int n = int(sizes.size());
  if (opset >= 13)
    return g.add("Split", name, {x, g.constantInt64(name + ".sizes", {int64_t(n)}, std::move(sizes))},
                 {G::attrInt("axis", axis)}, n);
  return g.add("Split", name, {x}, {G::attrInt("axis", axis), G::attrInts("split", std::move(sizes))}, n);
}

// [N, k] -> [N, k, 1] by Reshape with "copy this dimension" (0), which works for symbolic N and k alike
// (Unsqueeze changed its axes from an attribute to an input at opset 13).
std::string lastAxis(OnnxGraph& g, const std::string& name, const std::string& x) {
  return g.op("Reshape", name, {x, g.constantInt64(name + ".shape", {3}, {0, -1, 1})});
}

}  // namespace

int64_t end2endRows(int64_t anchors, int64_t max_det) {
  return std::min(max_det, anchors);
}

std::string end2endTail(OnnxGraph& g, const std::string& decoded, int64_t nc, int64_t anchors,
                        int64_t max_det, int64_t opset) {
  if (max_det < 1) fail("ONNX export: max_det must be >= 1, got ", max_det);
  if (opset < 12) fail("ONNX export: the end-to-end graph needs opset 12 or later (GatherND batch_dims)");
  const std::string p = "end2end";
  // eval::end2endDetections works on [N, A, 4+nc]; boxes go through model::xywh2xyxy's arithmetic
  // (xy -+ wh / 2) so that both compute the same floats.
  const std::string t = g.op("Transpose", p + ".anchors_first", {decoded}, {G::attrInts("perm", {0, 2, 1})});
  const auto box_cls = splitAxis(g, opset, p + ".split", t, {4, nc}, 2);
  const auto xy_wh = splitAxis(g, opset, p + ".xywh", box_cls[0], {2, 2}, 2);
  const std::string half_wh = g.op("Div", p + ".half_wh", {xy_wh[1], g.constant(p + ".two", {1}, {2.f})});
  const std::string boxes =
      g.op("Concat", p + ".xyxy",
           {g.op("Sub", p + ".x1y1", {xy_wh[0], half_wh}), g.op("Add", p + ".x2y2", {xy_wh[0], half_wh})},
           {G::attrInt("axis", 2)});       // [N, A, 4]
  const std::string& scores = box_cls[1];  // [N, A, nc]

  // k = min(max_det, A): a constant when A is known, else Min(A, max_det) from the scores' shape.
  const std::string best = g.op("ReduceMax", p + ".best_class_score", {scores},
                                {G::attrInts("axes", {2}), G::attrInt("keepdims", 0)});  // [N, A]
  std::string k;
  if (anchors > 0) {
    k = g.constantInt64(p + ".k", {1}, {end2endRows(anchors, max_det)});
  } else {
    const std::string a = g.op("Slice", p + ".anchor_count",
                               {g.op("Shape", p + ".shape", {best}), g.constantInt64(p + ".one", {1}, {1}),
                                g.constantInt64(p + ".two_i", {1}, {2})});
    k = g.op("Min", p + ".k", {a, g.constantInt64(p + ".max_det", {1}, {max_det})});
  }
  const std::vector<OnnxAttribute> topk_attrs{G::attrInt("axis", 1), G::attrInt("largest", 1),
                                              G::attrInt("sorted", 1)};

  // Stage 1: the k anchors whose best class scores highest, and their class scores [N, k, nc].
  const std::string top_anchors = g.add("TopK", p + ".top_anchors", {best, k}, topk_attrs, 2)[1];  // [N, k]
  const std::string kept_scores =
      g.op("GatherND", p + ".kept_scores", {scores, lastAxis(g, p + ".anchor_index", top_anchors)},
           {G::attrInt("batch_dims", 1)});
  // Stage 2: the k best (anchor, class) pairs among them; flat index = row * nc + class.
  const std::string flat =
      g.op("Reshape", p + ".pairs", {kept_scores, g.constantInt64(p + ".pairs_shape", {2}, {0, -1})});
  const auto top_pairs = g.add("TopK", p + ".top_pairs", {flat, k}, topk_attrs, 2);  // [N, k] each
  const std::string nc_i = g.constantInt64(p + ".nc", {1}, {nc});
  const std::string row = g.op("Div", p + ".row", {top_pairs[1], nc_i});
  const std::string cls = g.op("Mod", p + ".class", {top_pairs[1], nc_i});
  const std::string anchor =
      g.op("GatherElements", p + ".anchor", {top_anchors, row}, {G::attrInt("axis", 1)});  // [N, k]
  const std::string box = g.op("GatherND", p + ".boxes", {boxes, lastAxis(g, p + ".box_index", anchor)},
                               {G::attrInt("batch_dims", 1)});  // [N, k, 4]
  const std::string cls_f = g.op("Cast", p + ".class_float", {cls}, {G::attrInt("to", 1)});
  return g.op("Concat", p + ".output",
              {box, lastAxis(g, p + ".score_col", top_pairs[0]), lastAxis(g, p + ".class_col", cls_f)},
              {G::attrInt("axis", 2)});  // [N, k, 6]
}

}  // namespace ywb::onnx_export
