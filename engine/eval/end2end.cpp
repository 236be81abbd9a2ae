#include "eval/end2end.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/error.h"
#include "model/box_decode.h"

namespace ywb::eval {

at::Tensor end2endTopK(const at::Tensor& pred, int max_det, at::Tensor* anchors_out) {
  if (pred.dim() != 3 || pred.size(1) < 5)
    fail("end2endDetections: expected [N, 4+nc, A], got ", pred.sizes());
  if (max_det < 1) fail("max_det must be >= 1, got ", max_det);
  const at::Tensor t = pred.to(at::kFloat).transpose(1, 2);  // [N, A, 4+nc]
  const int64_t n = t.size(0), a = t.size(1), nc = t.size(2) - 4;
  const int64_t k = std::min<int64_t>(max_det, a);
  const at::Tensor boxes = model::xywh2xyxy(t.narrow(2, 0, 4));  // [N, A, 4]
  const at::Tensor scores = t.narrow(2, 4, nc);                  // [N, A, nc]
  // Stage 1: the k anchors whose best class scores highest.
  const at::Tensor anchors = std::get<1>(scores.amax(-1).topk(k, 1));  // [N, k]
  const at::Tensor kept_boxes = boxes.gather(1, anchors.unsqueeze(-1).expand({n, k, 4}));
  const at::Tensor kept_scores = scores.gather(1, anchors.unsqueeze(-1).expand({n, k, nc}));
  // Stage 2: the k best (anchor, class) pairs among them; an anchor may give several classes.
  const auto [best, flat] = kept_scores.flatten(1).topk(k, 1);  // [N, k]
  const at::Tensor row = flat.div(nc, "floor"), cls = flat.remainder(nc);
  const at::Tensor b = kept_boxes.gather(1, row.unsqueeze(-1).expand({n, k, 4}));
  if (anchors_out) *anchors_out = anchors.gather(1, row);
  return at::cat({b, best.unsqueeze(-1), cls.unsqueeze(-1).to(at::kFloat)}, -1);  // [N, k, 6]
}

std::vector<at::Tensor> end2endDetections(const at::Tensor& pred, double conf, int max_det,
                                          std::vector<at::Tensor>* anchors) {
  at::Tensor from;
  const at::Tensor out = end2endTopK(pred, max_det, anchors ? &from : nullptr);
  const at::Tensor best = out.select(2, 4);  // [N, k]
  const int64_t n = out.size(0);
  std::vector<at::Tensor> dets;
  dets.reserve(size_t(n));
  if (anchors) anchors->clear();
  for (int64_t i = 0; i < n; ++i) {
    const at::Tensor rows = at::nonzero(best[i] > conf).view(-1);
    dets.push_back(out[i].index_select(0, rows));
    if (anchors) anchors->push_back(from[i].index_select(0, rows));
  }
  return dets;
}

std::vector<at::Tensor> endToEndRows(const at::Tensor& rows, double conf, int max_det) {
  if (rows.dim() != 3 || rows.size(2) != 6) fail("end-to-end output: expected [N, k, 6], got ", rows.sizes());
  if (max_det < 1) fail("max_det must be >= 1, got ", max_det);
  const at::Tensor t = rows.to(at::kFloat).narrow(1, 0, std::min<int64_t>(max_det, rows.size(1)));
  std::vector<at::Tensor> dets;
  for (int64_t i = 0; i < t.size(0); ++i)
    dets.push_back(t[i].index_select(0, at::nonzero(t[i].select(1, 4) > conf).view(-1)));
  return dets;
}

}  // namespace ywb::eval
