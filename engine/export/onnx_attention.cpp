// YOLO11's attention as plain ONNX ops for OpenCV 4.6 (see attentionOnnx in onnx_attention.h).
#include "export/onnx_attention.h"

#include <tuple>
#include <utility>

namespace ywb::onnx_export {
namespace {

using G = OnnxGraph;

// q * kd^-0.5, applied to the queries before their MatMul: OpenCV 4.6 fuses a constant Mul that follows a
// MatMul into it and then drops it when the MatMul's second input is computed (the softmax came out of
// the unscaled scores: boxes 7.6 px off with Ultralytics' trained yolo11n; random weights, whose scores
// are all near 0, hid it). A Slice/Split output, as here, is not fused into.
std::string scaledQueries(OnnxGraph& g, const std::string& name, model::AttentionImpl& a,
                          const std::string& q) {
  return g.op("Mul", name + ".scale", {q, g.constant(name + ".scale_value", {1}, {float(a.scale())})});
}

std::string softmaxLast(OnnxGraph& g, const std::string& name, const std::string& scores) {
  return g.op("Softmax", name + ".softmax", {scores}, {G::attrInt("axis", 3)});
}

// The attention of a graph with symbolic H and W, without Shape (OpenCV 4.6 refuses Shape of a symbolic
// tensor: "!isDynamicShape in parseShape") and without un-flattening N = H*W (which needs H or W as a
// value). Per head (channels split head-major as Ultralytics' view(B, heads, 2kd+hd, N) orders them):
// queries stay [B,H,W,kd], so rows H are a batch dimension and the result comes out as [B,H,W,hd] ->
// Transpose -> [B,hd,H,W]. Keys and values are flattened to [B,1,1,N*d] (Reshape 0,1,1,-1) and repeated
// over the H rows by an outer product with ones [B,1,H,1] (MatMul with equal batch dimensions), then
// Transpose + Reshape (0,0,d,-1 / 0,0,-1,d) give [B,H,kd,N] and [B,H,N,hd]. Returns (out, v) as [B,C,H,W].
std::pair<std::string, std::string> dynamicHeads(OnnxGraph& g, const AttentionOps& ops,
                                                 const std::string& name, model::AttentionImpl& a,
                                                 const std::string& qkv, const std::string& x) {
  const int64_t heads = a.options.num_heads(), kd = a.keyDim(), hd = a.headDim();
  // ones [B,1,H,1] from x [B,C,H,W]: channel 0, ArgMax over W (keepdims) cast to float, times 0, plus 1.
  // (OpenCV 4.6 gives a Reduce a Reshape fixed at import sizes, and infers a Slice of a symbolic dimension
  // as empty at import, which MatMul's shape check then refuses; ArgMax keeps the trailing 1.)
  const std::string c0 =
      g.op("Slice", name + ".c0",
           {x, g.constantInt64(name + ".c0_starts", {1}, {0}), g.constantInt64(name + ".c0_ends", {1}, {1}),
            g.constantInt64(name + ".c0_axes", {1}, {1})});
  const std::string corner =
      g.op("Cast", name + ".rows_f",
           {g.op("ArgMax", name + ".rows", {c0}, {G::attrInt("axis", 3), G::attrInt("keepdims", 1)})},
           {G::attrInt("to", 1)});
  const std::string ones =
      g.op("Add", name + ".ones",
           {g.op("Mul", name + ".zeros", {corner, g.constant(name + ".zero", {1}, {0.f})}),
            g.constant(name + ".one", {1}, {1.f})});  // [B,1,H,1]
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < heads; ++i) sizes.insert(sizes.end(), {kd, kd, hd});
  const auto parts = ops.split(name + ".heads", qkv, sizes, 1);
  const auto perm = [&](const std::string& n, const std::string& t, std::vector<int64_t> p) {
    return g.op("Transpose", n, {t}, {G::attrInts("perm", std::move(p))});
  };
  const auto reshape = [&](const std::string& n, const std::string& t, std::vector<int64_t> shape) {
    const int64_t rank = int64_t(shape.size());
    return g.op("Reshape", n, {t, g.constantInt64(n + "_shape", {rank}, std::move(shape))});
  };
  // [B,d,H,W] -> [B,H,d,N] (keys, d_last = false) or [B,H,N,d] (values, d_last = true), repeated over H.
  const auto perRow = [&](const std::string& n, const std::string& t, int64_t d, bool d_last) {
    const std::string flat = d_last ? reshape(n + ".flat", perm(n + ".hwd", t, {0, 2, 3, 1}), {0, 1, 1, -1})
                                    : reshape(n + ".flat", t, {0, 1, 1, -1});
    const std::string rows = perm(n + ".rows", g.op("MatMul", n + ".repeat", {ones, flat}), {0, 2, 1, 3});
    return reshape(n + ".matrix", rows,
                   d_last ? std::vector<int64_t>{0, 0, -1, d} : std::vector<int64_t>{0, 0, d, -1});
  };
  std::vector<std::string> outs, vs;
  for (int64_t i = 0; i < heads; ++i) {
    const std::string hn = name + ".head" + std::to_string(i);
    const std::string& q = parts[size_t(3 * i)];
    const std::string& k = parts[size_t(3 * i + 1)];
    const std::string& v = parts[size_t(3 * i + 2)];
    const std::string scores = g.op(
        "MatMul", hn + ".qk",
        {perm(hn + ".q_hwd", scaledQueries(g, hn, a, q), {0, 2, 3, 1}), perRow(hn + ".k", k, kd, false)});
    const std::string out =
        g.op("MatMul", hn + ".av", {softmaxLast(g, hn, scores), perRow(hn + ".v", v, hd, true)});
    outs.push_back(perm(hn + ".out", out, {0, 3, 1, 2}));
    vs.push_back(v);
  }
  if (heads == 1) return {outs[0], vs[0]};
  return {g.op("Concat", name + ".out_heads", outs, {G::attrInt("axis", 1)}),
          g.op("Concat", name + ".v_heads", vs, {G::attrInt("axis", 1)})};
}

}  // namespace

// Attention as plain ONNX ops (OpenCV 4.6 imports MatMul of two computed 4-D tensors with equal batch
// dimensions, Transpose, Softmax over the last axis and Reshape whose shape is a constant that may hold 0
// = "copy this input dimension" and one -1). Static graphs: qkv [B,C',H,W] -> [B,heads,2kd+hd,N], Split on
// axis 2 into q, k, v; scores = MatMul((q * kd^-0.5)^T, k), Softmax(axis 3); out = MatMul(v, scores^T) ->
// [B,C,H,W] by literal Reshapes; + pe(v as [B,C,H,W]); proj. Dynamic graphs: see dynamicHeads().
std::string attentionOnnx(OnnxGraph& g, const YoloOnnxOptions& o, const AttentionOps& ops,
                          const std::string& name, model::AttentionImpl& a, const std::string& x, int64_t h,
                          int64_t w) {
  const int64_t heads = a.options.num_heads(), kd = a.keyDim(), hd = a.headDim(), c = a.options.dim();
  const std::string qkv = ops.conv(name + ".qkv", *a.qkv, x);
  std::string out_map, v_map;
  if (o.dynamic) {
    std::tie(out_map, v_map) = dynamicHeads(g, ops, name, a, qkv, x);
  } else {
    const std::string flat =
        g.op("Reshape", name + ".view",
             {qkv, g.constantInt64(name + ".view_shape", {4}, {o.batch, heads, 2 * kd + hd, h * w})});
    const auto qkv3 = ops.split(name + ".qkv_split", flat, {kd, kd, hd}, 2);
    const std::string qt = g.op("Transpose", name + ".q_t", {scaledQueries(g, name, a, qkv3[0])},
                                {G::attrInts("perm", {0, 1, 3, 2})});
    const std::string attn = softmaxLast(g, name, g.op("MatMul", name + ".qk", {qt, qkv3[1]}));
    const std::string attn_t =
        g.op("Transpose", name + ".attn_t", {attn}, {G::attrInts("perm", {0, 1, 3, 2})});
    const std::string out = g.op("MatMul", name + ".av", {qkv3[2], attn_t});
    const std::string map_shape = g.constantInt64(name + ".map_shape", {4}, {o.batch, c, h, w});
    v_map = g.op("Reshape", name + ".v_map", {qkv3[2], map_shape});
    out_map = g.op("Reshape", name + ".out_map", {out, map_shape});
  }
  const std::string y = g.op("Add", name + ".add_pe", {out_map, ops.conv(name + ".pe", *a.pe, v_map)});
  return ops.conv(name + ".proj", *a.proj, y);
}

}  // namespace ywb::onnx_export
