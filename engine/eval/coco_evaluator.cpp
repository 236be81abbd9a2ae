#include "eval/coco_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"

namespace ywb::eval {
namespace {

// numpy.linspace(start, stop, num): i * ((stop - start) / (num - 1)) + start, last element = stop.
// The thresholds must be bit-identical to pycocotools' because matching compares IoU >= threshold.
std::vector<double> linspace(double start, double stop, int num) {
  std::vector<double> v(static_cast<size_t>(num));
  const double step = (stop - start) / double(num - 1);
  for (int i = 0; i < num; ++i) v[size_t(i)] = double(i) * step + start;
  v.back() = stop;
  return v;
}

constexpr uint32_t kIgnoreShift = 16;

}  // namespace

CocoParams CocoParams::defaults() {
  CocoParams p;
  // pycocotools: np.linspace(.5, 0.95, int(np.round((0.95 - .5) / .05)) + 1) and (.0, 1.00, 101).
  p.iou_thrs = linspace(0.5, 0.95, 10);
  p.rec_thrs = linspace(0.0, 1.0, 101);
  p.area_rng = {{{0.0, 1e10}, {0.0, 32.0 * 32.0}, {32.0 * 32.0, 96.0 * 96.0}, {96.0 * 96.0, 1e10}}};
  return p;
}

double CocoEvalResult::summarize(bool ap, int t, int k, int a, int m) const {
  // np.mean(s[s > -1]) over the selected slice.
  double sum = 0;
  int64_t n = 0;
  const int t0 = t < 0 ? 0 : t, t1 = t < 0 ? T : t + 1;
  const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? K : k + 1;
  for (int ti = t0; ti < t1; ++ti) {
    for (int ki = k0; ki < k1; ++ki) {
      if (ap) {
        for (int r = 0; r < R; ++r) {
          const double v = precisionAt(ti, r, ki, a, m);
          if (v > -1) sum += v, ++n;
        }
      } else {
        const double v = recallAt(ti, ki, a, m);
        if (v > -1) sum += v, ++n;
      }
    }
  }
  return n ? sum / double(n) : -1.0;
}

int CocoEvalResult::maxDetIndex(int max_det) const {
  for (int m = 0; m < M; ++m) {
    if (params.max_dets[size_t(m)] == max_det) return m;
  }
  return -1;
}

CocoEvaluator::CocoEvaluator(const CocoGroundTruth& gt, const std::vector<CocoDetection>& detections,
                             CocoParams params)
    : gt_(gt), dt_(detections) {
  res_.params = std::move(params);
  if (res_.params.iou_thrs.size() > kIgnoreShift) fail("COCO evaluation supports at most 16 IoU thresholds");
}

void CocoEvaluator::prepare() {
  // p.imgIds = np.unique(imgIds), p.catIds = np.unique(catIds): sorted, duplicates dropped.
  std::vector<int64_t> imgs = gt_.image_ids;
  std::sort(imgs.begin(), imgs.end());
  imgs.erase(std::unique(imgs.begin(), imgs.end()), imgs.end());
  std::vector<int64_t>& cats = res_.cat_ids;
  cats.clear();
  for (const auto& c : gt_.categories) cats.push_back(c.id);
  std::sort(cats.begin(), cats.end());
  cats.erase(std::unique(cats.begin(), cats.end()), cats.end());
  std::unordered_map<int64_t, int32_t> img_index, cat_index;
  for (size_t i = 0; i < imgs.size(); ++i) img_index.emplace(imgs[i], int32_t(i));
  for (size_t k = 0; k < cats.size(); ++k) cat_index.emplace(cats[k], int32_t(k));
  res_.num_images = int64_t(imgs.size());
  const int64_t I = int64_t(imgs.size());

  std::unordered_set<int64_t> ann_ids;
  ann_ids.reserve(gt_.annotations.size());
  std::vector<std::pair<int64_t, uint32_t>> keyed;  // (k * I + i, index): sorted stably = file order per cell
  keyed.reserve(gt_.annotations.size());
  gt_img_.assign(gt_.annotations.size(), -1);
  for (size_t n = 0; n < gt_.annotations.size(); ++n) {
    const CocoAnnotation& a = gt_.annotations[n];
    if (!ann_ids.insert(a.id).second) {
      fail("ground truth: annotation id ", a.id, " appears twice; annotation ids must be unique");
    }
    const auto ii = img_index.find(a.image_id);
    const auto ki = cat_index.find(a.category_id);
    if (ii == img_index.end() || ki == cat_index.end()) {
      ++res_.skipped_gt;
      continue;
    }
    gt_img_[n] = ii->second;
    keyed.emplace_back(int64_t(ki->second) * I + ii->second, uint32_t(n));
    ++res_.num_gt;
    res_.num_crowd += a.iscrowd ? 1 : 0;
  }
  const auto build = [&](std::vector<uint32_t>& order, std::vector<size_t>& starts) {
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    order.resize(keyed.size());
    starts.assign(cats.size() + 1, keyed.size());
    size_t pos = 0;
    for (size_t k = 0; k <= cats.size(); ++k) {
      while (pos < keyed.size() && keyed[pos].first < int64_t(k) * I) ++pos;
      starts[k] = pos;
    }
    for (size_t n = 0; n < keyed.size(); ++n) order[n] = keyed[n].second;
  };
  build(gt_order_, gt_cat_start_);

  keyed.clear();
  keyed.reserve(dt_.size());
  dt_img_.assign(dt_.size(), -1);
  for (size_t n = 0; n < dt_.size(); ++n) {
    const CocoDetection& d = dt_[n];
    const auto ii = img_index.find(d.image_id);
    if (ii == img_index.end()) {
      fail("detections[", n, "]: image_id ", d.image_id,
           " is not an image of the ground truth; results must only name images of the ground-truth set "
           "(pycocotools refuses them too)");
    }
    const auto ki = cat_index.find(d.category_id);
    if (ki == cat_index.end()) {
      ++res_.skipped_dt;
      continue;
    }
    dt_img_[n] = ii->second;
    keyed.emplace_back(int64_t(ki->second) * I + ii->second, uint32_t(n));
    ++res_.num_dt;
  }
  build(dt_order_, dt_cat_start_);
}

CocoEvalResult CocoEvaluator::run() {
  prepare();
  CocoEvalResult& r = res_;
  r.T = int(r.params.iou_thrs.size());
  r.R = int(r.params.rec_thrs.size());
  r.K = int(r.cat_ids.size());
  r.A = int(r.params.area_rng.size());
  r.M = int(r.params.max_dets.size());
  r.precision.assign(size_t(r.T) * r.R * r.K * r.A * r.M, -1.0);
  r.recall.assign(size_t(r.T) * r.K * r.A * r.M, -1.0);
  r.matches.assign(size_t(r.K), {});
  r.cat_num_dt.assign(size_t(r.K), 0);
  std::vector<DetRecord> dets;
  std::vector<int64_t> npig;
  for (int k = 0; k < r.K; ++k) {
    evaluateCategory(k, dets, npig);
    accumulateCategory(k, dets, npig);
  }
  // pycocotools summarize(): stats[0..11].
  const int m100 = r.maxDetIndex(100), m1 = r.maxDetIndex(1), m10 = r.maxDetIndex(10);
  const int t50 = 0, t75 = 5;  // iouThrs[0] == .5, iouThrs[5] == .75
  r.stats = {r.summarize(true, -1, -1, 0, m100),  r.summarize(true, t50, -1, 0, m100),
             r.summarize(true, t75, -1, 0, m100), r.summarize(true, -1, -1, 1, m100),
             r.summarize(true, -1, -1, 2, m100),  r.summarize(true, -1, -1, 3, m100),
             r.summarize(false, -1, -1, 0, m1),   r.summarize(false, -1, -1, 0, m10),
             r.summarize(false, -1, -1, 0, m100), r.summarize(false, -1, -1, 1, m100),
             r.summarize(false, -1, -1, 2, m100), r.summarize(false, -1, -1, 3, m100)};
  return std::move(res_);
}

void CocoEvaluator::evaluateCategory(int k, std::vector<DetRecord>& dets, std::vector<int64_t>& npig) {
  dets.clear();
  npig.assign(size_t(res_.A), 0);
  size_t gi = gt_cat_start_[size_t(k)], ge = gt_cat_start_[size_t(k) + 1];
  size_t di = dt_cat_start_[size_t(k)], de = dt_cat_start_[size_t(k) + 1];
  std::vector<uint32_t> g, d;
  // Walk the images of this category in ascending id order (pycocotools' evalImgs order).
  while (gi < ge || di < de) {
    const int32_t img =
        std::min(gi < ge ? gt_img_[gt_order_[gi]] : INT32_MAX, di < de ? dt_img_[dt_order_[di]] : INT32_MAX);
    g.clear();
    d.clear();
    while (gi < ge && gt_img_[gt_order_[gi]] == img) g.push_back(gt_order_[gi++]);
    while (di < de && dt_img_[dt_order_[di]] == img) d.push_back(dt_order_[di++]);
    evaluateImage(g, d, dets, npig);
  }
}

// pycocotools computeIoU + evaluateImg for one (image, category), all area ranges at once.
void CocoEvaluator::evaluateImage(const std::vector<uint32_t>& g, std::vector<uint32_t>& d,
                                  std::vector<DetRecord>& dets, std::vector<int64_t>& npig) {
  const CocoParams& p = res_.params;
  // Detections by score, highest first, stable (np.argsort(-score, kind='mergesort')), cut to maxDets[-1].
  std::stable_sort(d.begin(), d.end(), [&](uint32_t x, uint32_t y) { return dt_[x].score > dt_[y].score; });
  if (d.size() > size_t(p.max_dets.back())) d.resize(size_t(p.max_dets.back()));
  const size_t G = g.size(), D = d.size();
  // maskApi.c bbIou: IoU in doubles; for crowd ground truth the union is the detection's area.
  ious_.assign(D * G, 0.0);
  for (size_t j = 0; j < G; ++j) {
    const CocoAnnotation& gb = gt_.annotations[g[j]];
    const double ga = gb.w * gb.h;
    for (size_t i = 0; i < D; ++i) {
      const CocoDetection& db = dt_[d[i]];
      const double da = db.w * db.h;
      const double w = std::fmin(db.w + db.x, gb.w + gb.x) - std::fmax(db.x, gb.x);
      if (w <= 0) continue;
      const double h = std::fmin(db.h + db.y, gb.h + gb.y) - std::fmax(db.y, gb.y);
      if (h <= 0) continue;
      const double inter = w * h;
      ious_[i * G + j] = inter / (gb.iscrowd ? da : da + ga - inter);
    }
  }
  const size_t first = dets.size();
  for (size_t i = 0; i < D; ++i) {
    DetRecord rec;
    rec.score = dt_[d[i]].score;
    rec.pos = uint32_t(i);
    dets.push_back(rec);
  }
  const int T = res_.T;
  std::vector<uint32_t> order(G);
  std::vector<uint8_t> ig(G), gtm(size_t(T) * G);
  for (int a = 0; a < res_.A; ++a) {
    const double lo = p.area_rng[size_t(a)][0], hi = p.area_rng[size_t(a)][1];
    // _prepare sets ignore = iscrowd; evaluateImg adds "area outside the range".
    for (size_t j = 0; j < G; ++j) {
      const CocoAnnotation& gb = gt_.annotations[g[j]];
      ig[j] = (gb.iscrowd || gb.area < lo || gb.area > hi) ? 1 : 0;
    }
    // Ground truth with ignore last, stable (np.argsort(_ignore, kind='mergesort')).
    std::iota(order.begin(), order.end(), 0u);
    std::stable_partition(order.begin(), order.end(), [&](uint32_t j) { return ig[j] == 0; });
    for (size_t j = 0; j < G; ++j) npig[size_t(a)] += ig[j] ? 0 : 1;
    std::fill(gtm.begin(), gtm.end(), 0);
    for (int t = 0; t < T; ++t) {
      for (size_t i = 0; i < D; ++i) {
        double best = std::min(p.iou_thrs[size_t(t)], 1 - 1e-10);
        long m = -1;
        for (size_t gp = 0; gp < G; ++gp) {
          const uint32_t j = order[gp];
          // An already matched box is skipped unless it is a crowd box (crowds absorb many detections).
          if (gtm[size_t(t) * G + gp] && !gt_.annotations[g[j]].iscrowd) continue;
          // Matched to a regular box already and reached the ignored ones: stop.
          if (m > -1 && !ig[order[size_t(m)]] && ig[j]) break;
          if (ious_[i * G + j] < best) continue;
          best = ious_[i * G + j];
          m = long(gp);
        }
        if (m == -1) continue;
        const uint32_t j = order[size_t(m)];
        uint32_t& mask = dets[first + i].mask[size_t(a)];
        if (ig[j]) mask |= 1u << (kIgnoreShift + uint32_t(t));
        // dtMatches stores the ground truth's id and accumulate() tests it for truth: an id of 0 reads as
        // "no match" in pycocotools, so it does here too.
        if (gt_.annotations[g[j]].id != 0) mask |= 1u << uint32_t(t);
        gtm[size_t(t) * G + size_t(m)] = 1;
      }
    }
    // Unmatched detections outside the area range are ignored.
    for (size_t i = 0; i < D; ++i) {
      const CocoDetection& db = dt_[d[i]];
      const double area = db.w * db.h;  // loadRes: area = bbox w * h
      if (area < lo || area > hi) {
        uint32_t& mask = dets[first + i].mask[size_t(a)];
        for (int t = 0; t < T; ++t) {
          if (!(mask & (1u << uint32_t(t)))) mask |= 1u << (kIgnoreShift + uint32_t(t));
        }
      }
    }
  }
}

void CocoEvaluator::accumulateCategory(int k, std::vector<DetRecord>& dets,
                                       const std::vector<int64_t>& npig) {
  CocoEvalResult& r = res_;
  // Concatenation over images in id order, then np.argsort(-scores, kind='mergesort').
  std::stable_sort(dets.begin(), dets.end(),
                   [](const DetRecord& x, const DetRecord& y) { return x.score > y.score; });
  r.cat_num_dt[size_t(k)] = int64_t(dets.size());
  std::vector<size_t> sel;
  std::vector<double> rc, pr;
  constexpr double kSpacing1 = std::numeric_limits<double>::epsilon();  // np.spacing(1)
  for (int m = 0; m < r.M; ++m) {
    const uint32_t max_det = uint32_t(r.params.max_dets[size_t(m)]);
    sel.clear();
    for (size_t n = 0; n < dets.size(); ++n) {
      if (dets[n].pos < max_det) sel.push_back(n);
    }
    const size_t nd = sel.size();
    for (int a = 0; a < r.A; ++a) {
      if (npig[size_t(a)] == 0) continue;  // no regular ground truth: stays -1
      for (int t = 0; t < r.T; ++t) {
        rc.resize(nd);
        pr.resize(nd);
        double tp = 0, fp = 0;
        for (size_t n = 0; n < nd; ++n) {
          const uint32_t mask = dets[sel[n]].mask[size_t(a)];
          if (!(mask & (1u << (kIgnoreShift + uint32_t(t))))) {
            if (mask & (1u << uint32_t(t)))
              tp += 1;
            else
              fp += 1;
          }
          rc[n] = tp / double(npig[size_t(a)]);
          pr[n] = tp / (fp + tp + kSpacing1);
        }
        r.recallAt(t, k, a, m) = nd ? rc[nd - 1] : 0.0;
        // Precision envelope: make it non-increasing from the right.
        for (size_t n = nd > 0 ? nd - 1 : 0; n > 0; --n) {
          if (pr[n] > pr[n - 1]) pr[n - 1] = pr[n];
        }
        // np.searchsorted(rc, recThrs, side='left'); past the end the rest stays 0.
        for (int ri = 0; ri < r.R; ++ri) {
          const auto it = std::lower_bound(rc.begin(), rc.end(), r.params.rec_thrs[size_t(ri)]);
          r.precisionAt(t, ri, k, a, m) = it == rc.end() ? 0.0 : pr[size_t(it - rc.begin())];
        }
      }
      if (a == 0 && m == r.M - 1) {
        CocoCategoryMatches& cm = r.matches[size_t(k)];
        cm.num_gt = npig[0];
        for (size_t n = 0; n < nd; ++n) {
          const uint32_t mask = dets[sel[n]].mask[0];
          if (mask & (1u << kIgnoreShift)) continue;
          cm.scores.push_back(dets[sel[n]].score);
          cm.tp.push_back((mask & 1u) ? 1 : 0);
        }
      }
    }
  }
}

}  // namespace ywb::eval
