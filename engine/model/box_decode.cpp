#include "model/box_decode.h"

#include "core/error.h"

namespace ywb::model {

std::pair<at::Tensor, at::Tensor> makeAnchors(const std::vector<at::Tensor>& feats,
                                              const std::vector<int64_t>& strides, double offset) {
  if (feats.size() != strides.size())
    fail("makeAnchors: ", feats.size(), " maps but ", strides.size(), " strides");
  std::vector<at::Tensor> points, stride_parts;
  for (size_t i = 0; i < feats.size(); ++i) {
    const auto opts = feats[i].options();
    const int64_t h = feats[i].size(2), w = feats[i].size(3);
    const at::Tensor sx = at::arange(w, opts) + offset;
    const at::Tensor sy = at::arange(h, opts) + offset;
    // Row-major over (y, x), so anchor a = y * w + x matches view(N, C, -1) of the map.
    points.push_back(
        at::stack({sx.view({1, w}).expand({h, w}), sy.view({h, 1}).expand({h, w})}, -1).view({-1, 2}));
    stride_parts.push_back(at::full({h * w, 1}, double(strides[i]), opts));
  }
  return {at::cat(points, 0), at::cat(stride_parts, 0)};
}

at::Tensor dist2bbox(const at::Tensor& distance, const at::Tensor& anchor_points, bool xywh, int64_t dim) {
  const auto lt_rb = distance.chunk(2, dim);
  const at::Tensor x1y1 = anchor_points - lt_rb[0];
  const at::Tensor x2y2 = anchor_points + lt_rb[1];
  if (xywh) return at::cat({(x1y1 + x2y2) / 2, x2y2 - x1y1}, dim);
  return at::cat({x1y1, x2y2}, dim);
}

at::Tensor dflExpectation(const at::Tensor& box_logits, int64_t reg_max, const at::Tensor& projection) {
  const int64_t n = box_logits.size(0), a = box_logits.size(2);
  const at::Tensor proj = projection.defined() ? projection.reshape({reg_max}).to(box_logits.scalar_type())
                                               : at::arange(reg_max, box_logits.options());
  // [N, 4, reg_max, A]: softmax over the bins, then the expectation sum_k p_k * proj_k.
  const at::Tensor p = box_logits.view({n, 4, reg_max, a}).softmax(2);
  return (p * proj.view({1, 1, reg_max, 1})).sum(2);
}

at::Tensor decodeOutputs(const std::vector<at::Tensor>& feats, const std::vector<int64_t>& strides,
                         int64_t nc, const at::Tensor& projection, int64_t reg_max) {
  if (feats.empty()) fail("decodeOutputs: no feature maps");
  const int64_t n = feats[0].size(0), no = 4 * reg_max + nc;
  std::vector<at::Tensor> flat;
  for (const auto& f : feats) {
    if (f.size(1) != no)
      fail("decodeOutputs: map has ", f.size(1), " channels, expected 4*", reg_max, "+nc = ", no);
    flat.push_back(f.view({n, no, -1}));
  }
  const at::Tensor x = at::cat(flat, 2);
  const auto parts = x.split_with_sizes({4 * reg_max, nc}, 1);
  auto [anchors, stride_t] = makeAnchors(feats, strides, 0.5);
  const at::Tensor dist = reg_max > 1 ? dflExpectation(parts[0], reg_max, projection) : parts[0];
  // anchors [A,2] -> [1,2,A]; strides [A,1] -> [1,1,A].
  const at::Tensor boxes = dist2bbox(dist, anchors.t().unsqueeze(0), true, 1) * stride_t.t().unsqueeze(0);
  return at::cat({boxes, parts[1].sigmoid()}, 1);
}

at::Tensor xywh2xyxy(const at::Tensor& xywh) {
  const auto c = xywh.split(2, -1);
  return at::cat({c[0] - c[1] / 2, c[0] + c[1] / 2}, -1);
}

Detections splitDecoded(const at::Tensor& decoded) {
  const at::Tensor t = decoded.transpose(1, 2);  // [N, A, 4+nc]
  const int64_t nc = t.size(2) - 4;
  const auto parts = t.split_with_sizes({4, nc}, 2);
  return {xywh2xyxy(parts[0]), parts[1]};
}

}  // namespace ywb::model
