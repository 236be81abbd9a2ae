#include "eval/nms.h"

#include <torch/autograd.h>

#include <algorithm>

namespace ywb {

std::vector<at::Tensor> nonMaxSuppression(const at::Tensor& pred, double conf, double iou, int max_det,
                                          bool agnostic, int max_nms) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> out;
  const int64_t n = pred.size(0), nc = pred.size(1) - 4;
  for (int64_t b = 0; b < n; ++b) {
    at::Tensor p = pred[b].transpose(0, 1).to(at::kFloat);  // [A, 4+nc]
    at::Tensor scores_all = p.narrow(1, 4, nc);
    auto [score, cls] = scores_all.max(1);
    at::Tensor keep = score > conf;
    at::Tensor idx = keep.nonzero().squeeze(1);
    if (idx.numel() == 0) {
      out.push_back(at::zeros({0, 6}, at::kFloat));
      continue;
    }
    at::Tensor xywh = p.index_select(0, idx).narrow(1, 0, 4);
    at::Tensor s = score.index_select(0, idx);
    at::Tensor c = cls.index_select(0, idx).to(at::kFloat);
    at::Tensor boxes = at::cat(
        {xywh.narrow(1, 0, 2) - xywh.narrow(1, 2, 2) / 2, xywh.narrow(1, 0, 2) + xywh.narrow(1, 2, 2) / 2},
        1);
    // Stable descending sort: equal scores keep anchor order.
    at::Tensor order = std::get<1>(s.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
    if (order.numel() > max_nms) order = order.narrow(0, 0, max_nms);
    boxes = boxes.index_select(0, order).to(at::kCPU).contiguous();
    s = s.index_select(0, order).to(at::kCPU).contiguous();
    c = c.index_select(0, order).to(at::kCPU).contiguous();
    const int64_t m = boxes.size(0);
    const float* bx = boxes.data_ptr<float>();
    const float* sc = s.data_ptr<float>();
    const float* cl = c.data_ptr<float>();
    std::vector<char> removed(size_t(m), 0);
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < m && int(kept.size()) < max_det; ++i) {
      if (removed[size_t(i)]) continue;
      kept.push_back(i);
      const float* a = bx + 4 * i;
      const float area_a = std::max(0.f, a[2] - a[0]) * std::max(0.f, a[3] - a[1]);
      for (int64_t j = i + 1; j < m; ++j) {
        if (removed[size_t(j)] || (!agnostic && cl[j] != cl[i])) continue;
        const float* q = bx + 4 * j;
        const float iw = std::min(a[2], q[2]) - std::max(a[0], q[0]);
        if (iw <= 0) continue;
        const float ih = std::min(a[3], q[3]) - std::max(a[1], q[1]);
        if (ih <= 0) continue;
        const float inter = iw * ih;
        const float area_q = std::max(0.f, q[2] - q[0]) * std::max(0.f, q[3] - q[1]);
        if (inter / (area_a + area_q - inter) > iou) removed[size_t(j)] = 1;
      }
    }
    at::Tensor det = at::empty({int64_t(kept.size()), 6}, at::kFloat);
    float* d = det.data_ptr<float>();
    for (size_t k = 0; k < kept.size(); ++k) {
      const int64_t i = kept[k];
      std::copy(bx + 4 * i, bx + 4 * i + 4, d + 6 * k);
      d[6 * k + 4] = sc[i];
      d[6 * k + 5] = cl[i];
    }
    out.push_back(det);
  }
  return out;
}

}  // namespace ywb
