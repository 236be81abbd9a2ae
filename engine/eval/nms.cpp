#include "eval/nms.h"

#include <algorithm>

#include "core/error.h"

namespace ywb::eval {
namespace {

// IoU of every row box against every column box, the same float operations as greedyNmsCpu's loop.
at::Tensor pairwiseIou(const at::Tensor& a, const at::Tensor& b) {
  const auto ax1 = a.select(1, 0).unsqueeze(1), ay1 = a.select(1, 1).unsqueeze(1);
  const auto ax2 = a.select(1, 2).unsqueeze(1), ay2 = a.select(1, 3).unsqueeze(1);
  const auto bx1 = b.select(1, 0).unsqueeze(0), by1 = b.select(1, 1).unsqueeze(0);
  const auto bx2 = b.select(1, 2).unsqueeze(0), by2 = b.select(1, 3).unsqueeze(0);
  const auto w = (at::minimum(ax2, bx2) - at::maximum(ax1, bx1)).clamp_min(0);
  const auto h = (at::minimum(ay2, by2) - at::maximum(ay1, by1)).clamp_min(0);
  const auto inter = w * h;
  const auto area_a = (ax2 - ax1) * (ay2 - ay1), area_b = (bx2 - bx1) * (by2 - by1);
  return inter / (area_a + area_b - inter);
}

at::Tensor keepTensor(const std::vector<int64_t>& keep) {
  return at::tensor(at::ArrayRef<int64_t>(keep), at::TensorOptions().dtype(at::kLong));
}

// Exact greedy NMS over boxes in priority order (x1y1x2y2 rows). Stops once max_keep boxes are kept: later
// boxes can no longer change the first max_keep.
std::vector<int64_t> greedyLoop(const float* b, const int64_t* c, int64_t n, float thr, int64_t max_keep,
                                bool agnostic) {
  std::vector<float> area(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) area[size_t(i)] = (b[4 * i + 2] - b[4 * i]) * (b[4 * i + 3] - b[4 * i + 1]);
  std::vector<uint8_t> removed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < n && int64_t(keep.size()) < max_keep; ++i) {
    if (removed[size_t(i)]) continue;
    keep.push_back(i);
    const float x1 = b[4 * i], y1 = b[4 * i + 1], x2 = b[4 * i + 2], y2 = b[4 * i + 3];
    for (int64_t j = i + 1; j < n; ++j) {
      if (removed[size_t(j)] || (!agnostic && c[j] != c[i])) continue;
      const float w = std::max(std::min(x2, b[4 * j + 2]) - std::max(x1, b[4 * j]), 0.0f);
      const float h = std::max(std::min(y2, b[4 * j + 3]) - std::max(y1, b[4 * j + 1]), 0.0f);
      const float inter = w * h;
      if (inter / (area[size_t(i)] + area[size_t(j)] - inter) > thr) removed[size_t(j)] = 1;
    }
  }
  return keep;
}

// Class-aware greedy NMS run class by class: boxes of different classes never interact, so each class's
// greedy pass is independent; merging the kept positions in priority order and cutting at max_keep gives
// exactly the global pass, with about nc times fewer overlap tests.
std::vector<int64_t> greedyByClass(const std::vector<float>& boxes, const std::vector<int64_t>& cls,
                                   float thr, int64_t max_keep, bool agnostic) {
  const int64_t n = int64_t(cls.size());
  if (agnostic) return greedyLoop(boxes.data(), cls.data(), n, thr, max_keep, true);
  std::vector<std::vector<int64_t>> members;
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = size_t(cls[size_t(i)]);
    if (c >= members.size()) members.resize(c + 1);
    members[c].push_back(i);
  }
  std::vector<int64_t> keep;
  std::vector<float> sub;
  std::vector<int64_t> same;
  for (const auto& m : members) {
    if (m.empty()) continue;
    sub.resize(4 * m.size());
    for (size_t k = 0; k < m.size(); ++k)
      std::copy(&boxes[size_t(4 * m[k])], &boxes[size_t(4 * m[k])] + 4, &sub[4 * k]);
    same.assign(m.size(), 0);
    for (int64_t k : greedyLoop(sub.data(), same.data(), int64_t(m.size()), thr, max_keep, true)) {
      keep.push_back(m[size_t(k)]);
    }
  }
  std::sort(keep.begin(), keep.end());
  if (int64_t(keep.size()) > max_keep) keep.resize(size_t(max_keep));
  return keep;
}

}  // namespace

at::Tensor greedyNmsCpu(const at::Tensor& boxes_in, const at::Tensor& classes_in, double iou,
                        int64_t max_keep, bool agnostic) {
  const at::Tensor boxes = boxes_in.to(at::kCPU, at::kFloat).contiguous();
  const at::Tensor classes = classes_in.to(at::kCPU, at::kLong).contiguous();
  return keepTensor(greedyLoop(boxes.data_ptr<float>(), classes.data_ptr<int64_t>(), boxes.size(0),
                               float(iou), max_keep, agnostic));
}

at::Tensor greedyNmsBlocked(const at::Tensor& boxes_in, const at::Tensor& classes, double iou,
                            int64_t max_keep, bool agnostic, int64_t block_rows) {
  const at::Tensor boxes = boxes_in.to(at::kFloat).contiguous();
  const int64_t n = boxes.size(0);
  std::vector<uint8_t> removed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t start = 0; start < n && int64_t(keep.size()) < max_keep; start += block_rows) {
    const int64_t rows = std::min(block_rows, n - start);
    // Overlaps of this block's rows with every later box (columns start .. n-1).
    const at::Tensor cols = boxes.narrow(0, start, n - start);
    at::Tensor over = pairwiseIou(boxes.narrow(0, start, rows), cols).gt(iou);
    if (!agnostic) {
      const at::Tensor cc = classes.narrow(0, start, n - start);
      over = over.logical_and(cc.narrow(0, 0, rows).unsqueeze(1).eq(cc.unsqueeze(0)));
    }
    const at::Tensor host = over.to(at::kCPU, at::kByte).contiguous();
    const uint8_t* o = host.data_ptr<uint8_t>();
    const int64_t width = n - start;
    for (int64_t r = 0; r < rows && int64_t(keep.size()) < max_keep; ++r) {
      const int64_t i = start + r;
      if (removed[size_t(i)]) continue;
      keep.push_back(i);
      const uint8_t* row = o + r * width;
      for (int64_t col = r + 1; col < width; ++col) {
        if (row[col]) removed[size_t(start + col)] = 1;
      }
    }
  }
  return keepTensor(keep);
}

std::vector<at::Tensor> nmsHostLoop(const at::Tensor& pred, double conf, double iou, int max_det,
                                    bool agnostic, int max_nms, bool multi_label) {
  const int64_t N = pred.size(0), C = pred.size(1), A = pred.size(2), nc = C - 4;
  const at::Tensor all = pred.to(at::kCPU, at::kFloat).contiguous();
  const float thr_conf = float(conf);
  std::vector<at::Tensor> out;
  struct Cand {
    int64_t anchor, cls;
    float score;
  };
  std::vector<Cand> cand;
  std::vector<float> best(static_cast<size_t>(A));
  std::vector<int64_t> arg(static_cast<size_t>(A));
  for (int64_t b = 0; b < N; ++b) {
    const float* p = all.data_ptr<float>() + b * C * A;  // [4 + nc, A]
    cand.clear();
    if (multi_label) {
      for (int64_t a = 0; a < A; ++a) {
        for (int64_t c = 0; c < nc; ++c) {
          const float v = p[(4 + c) * A + a];
          if (v > thr_conf) cand.push_back({a, c, v});
        }
      }
    } else {
      // Best class per anchor, class by class so the reads stay contiguous; ties keep the lower class.
      std::copy(p + 4 * A, p + 5 * A, best.begin());
      std::fill(arg.begin(), arg.end(), 0);
      for (int64_t c = 1; c < nc; ++c) {
        const float* s = p + (4 + c) * A;
        for (int64_t a = 0; a < A; ++a) {
          if (s[a] > best[size_t(a)]) best[size_t(a)] = s[a], arg[size_t(a)] = c;
        }
      }
      for (int64_t a = 0; a < A; ++a) {
        if (best[size_t(a)] > thr_conf) cand.push_back({a, arg[size_t(a)], best[size_t(a)]});
      }
    }
    // Highest score first, ties in anchor order; at most max_nms candidates.
    std::stable_sort(cand.begin(), cand.end(),
                     [](const Cand& x, const Cand& y) { return x.score > y.score; });
    if (int64_t(cand.size()) > max_nms) cand.resize(size_t(max_nms));
    const int64_t n = int64_t(cand.size());
    std::vector<float> boxes(size_t(4 * n));
    std::vector<int64_t> cls(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = cand[size_t(i)].anchor;
      const float cx = p[a], cy = p[A + a], hw = p[2 * A + a] / 2, hh = p[3 * A + a] / 2;
      boxes[size_t(4 * i)] = cx - hw, boxes[size_t(4 * i + 1)] = cy - hh;
      boxes[size_t(4 * i + 2)] = cx + hw, boxes[size_t(4 * i + 3)] = cy + hh;
      cls[size_t(i)] = cand[size_t(i)].cls;
    }
    const std::vector<int64_t> keep = greedyByClass(boxes, cls, float(iou), max_det, agnostic);
    at::Tensor o = at::empty({int64_t(keep.size()), 6}, at::kFloat);
    float* w = o.data_ptr<float>();
    for (size_t k = 0; k < keep.size(); ++k) {
      const size_t i = size_t(keep[k]);
      std::copy(&boxes[4 * i], &boxes[4 * i] + 4, w + 6 * k);
      w[6 * k + 4] = cand[i].score;
      w[6 * k + 5] = float(cls[i]);
    }
    out.push_back(o);
  }
  return out;
}

std::vector<at::Tensor> nmsTensorOps(const at::Tensor& pred, double conf, double iou, int max_det,
                                     bool agnostic, int max_nms, bool multi_label) {
  const int64_t nc = pred.size(1) - 4;
  std::vector<at::Tensor> out;
  for (int64_t b = 0; b < pred.size(0); ++b) {
    const at::Tensor xb = pred[b].to(at::kFloat);       // [4 + nc, A]
    const at::Tensor cls_scores = xb.narrow(0, 4, nc);  // reduced along classes
    at::Tensor rows, score, cls;
    if (multi_label) {
      const at::Tensor ij = cls_scores.t().gt(conf).nonzero();  // anchor order, then class
      rows = ij.select(1, 0);
      cls = ij.select(1, 1);
      score = cls_scores.index({cls, rows});
    } else {
      const auto best = cls_scores.max(0);
      rows = std::get<0>(best).gt(conf).nonzero().squeeze(1);
      score = std::get<0>(best).index_select(0, rows);
      cls = std::get<1>(best).index_select(0, rows);
    }
    if (rows.numel() == 0) {
      out.push_back(at::zeros({0, 6}, xb.options()));
      continue;
    }
    // Highest score first, ties in anchor order; at most max_nms candidates.
    at::Tensor order = std::get<1>(at::sort(score, /*stable=*/true, /*dim=*/0, /*descending=*/true));
    if (order.size(0) > max_nms) order = order.narrow(0, 0, max_nms);
    const at::Tensor xywh = xb.narrow(0, 0, 4).index_select(1, rows.index_select(0, order)).t();
    const at::Tensor half = xywh.narrow(1, 2, 2) / 2;
    const at::Tensor xy = xywh.narrow(1, 0, 2);
    const at::Tensor boxes = at::cat({xy - half, xy + half}, 1);
    score = score.index_select(0, order);
    cls = cls.index_select(0, order);
    const at::Tensor k = greedyNmsBlocked(boxes, cls, iou, max_det, agnostic).to(pred.device());
    out.push_back(at::cat({boxes.index_select(0, k), score.index_select(0, k).unsqueeze(1),
                           cls.index_select(0, k).to(at::kFloat).unsqueeze(1)},
                          1));
  }
  return out;
}

std::vector<DetBox> detBoxesFromTensor(const at::Tensor& dets) {
  if (dets.dim() != 2 || dets.size(1) != 6) fail("detections must be [k, 6], got ", dets.sizes());
  const at::Tensor c = dets.to(at::kCPU, at::kFloat).contiguous();
  const float* x = c.data_ptr<float>();
  std::vector<DetBox> out(static_cast<size_t>(c.size(0)));
  for (size_t i = 0; i < out.size(); ++i) {
    const float* r = x + 6 * i;
    out[i] = {r[0], r[1], r[2], r[3], r[4], int(r[5])};
  }
  return out;
}

std::vector<at::Tensor> nonMaxSuppression(const at::Tensor& pred, double conf, double iou, int max_det,
                                          bool agnostic, int max_nms, bool multi_label) {
  return guarded("non-maximum suppression", [&] {
    if (pred.dim() != 3 || pred.size(1) < 5) {
      fail("NMS expects predictions [batch, 4 + classes, anchors], got ", pred.sizes());
    }
    if (max_det < 0 || max_nms < 0) fail("NMS: max_det and max_nms must not be negative");
    return pred.is_cuda() ? nmsTensorOps(pred, conf, iou, max_det, agnostic, max_nms, multi_label)
                          : nmsHostLoop(pred, conf, iou, max_det, agnostic, max_nms, multi_label);
  });
}

}  // namespace ywb::eval
