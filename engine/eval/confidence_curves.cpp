#include "eval/confidence_curves.h"

#include <algorithm>
#include <cmath>

namespace ywb::eval {
namespace {

constexpr int kPoints = 1000;
constexpr double kEps = 1e-16;

// Ultralytics' smooth(y, f): box filter of width round(len * f * 2) // 2 + 1, edges padded with the end
// values.
std::vector<double> smooth(const std::vector<double>& y, double f) {
  const int nf = int(std::lround(double(y.size()) * f * 2)) / 2 + 1;
  const int half = nf / 2;
  std::vector<double> padded;
  padded.reserve(y.size() + size_t(2 * half));
  padded.insert(padded.end(), size_t(half), y.front());
  padded.insert(padded.end(), y.begin(), y.end());
  padded.insert(padded.end(), size_t(half), y.back());
  std::vector<double> out(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    double s = 0;
    for (int j = 0; j < nf; ++j) s += padded[i + size_t(j)] / nf;
    out[i] = s;
  }
  return out;
}

}  // namespace

double npInterp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left) {
  if (xp.empty()) return left;
  if (x < xp.front()) return left;
  if (x >= xp.back()) return fp.back();
  // Last index with xp[j] <= x (numpy's binary search lands there with duplicates too).
  const size_t j = size_t(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  if (xp[j] == x) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  return slope * (x - xp[j]) + fp[j];
}

ConfidenceCurves confidenceCurves(const std::vector<CocoCategoryMatches>& matches) {
  ConfidenceCurves c;
  c.confidence.resize(kPoints);
  const double step = 1.0 / (kPoints - 1);
  for (int i = 0; i < kPoints; ++i) c.confidence[size_t(i)] = i * step;
  c.confidence.back() = 1.0;
  const size_t K = matches.size();
  c.precision.assign(K, {});
  c.recall.assign(K, {});
  c.f1.assign(K, {});
  c.precision_mean.assign(kPoints, 0.0);
  c.recall_mean.assign(kPoints, 0.0);
  c.f1_mean.assign(kPoints, 0.0);
  int classes = 0;
  std::vector<double> neg_conf, rec, prec;
  for (size_t k = 0; k < K; ++k) {
    const CocoCategoryMatches& m = matches[k];
    if (m.num_gt == 0) continue;  // Ultralytics: only classes present in the labels
    ++classes;
    std::vector<double>&p = c.precision[k], &r = c.recall[k], &f = c.f1[k];
    p.assign(kPoints, 0.0);
    r.assign(kPoints, 0.0);
    f.assign(kPoints, 0.0);
    const size_t n = m.scores.size();
    if (n > 0) {
      neg_conf.resize(n);
      rec.resize(n);
      prec.resize(n);
      double tpc = 0, fpc = 0;
      for (size_t i = 0; i < n; ++i) {
        tpc += m.tp[i];
        fpc += 1 - m.tp[i];
        neg_conf[i] = -m.scores[i];
        rec[i] = tpc / (double(m.num_gt) + kEps);
        prec[i] = tpc / (tpc + fpc);
      }
      for (int x = 0; x < kPoints; ++x) {
        const double q = -c.confidence[size_t(x)];
        r[size_t(x)] = npInterp(q, neg_conf, rec, 0.0);   // below the lowest score nothing is recalled
        p[size_t(x)] = npInterp(q, neg_conf, prec, 1.0);  // above the highest score precision reads 1
      }
    }
    for (int x = 0; x < kPoints; ++x) {
      const size_t i = size_t(x);
      f[i] = 2 * p[i] * r[i] / (p[i] + r[i] + kEps);
      c.precision_mean[i] += p[i];
      c.recall_mean[i] += r[i];
      c.f1_mean[i] += f[i];
    }
  }
  if (classes == 0) return c;
  for (int x = 0; x < kPoints; ++x) {
    c.precision_mean[size_t(x)] /= classes;
    c.recall_mean[size_t(x)] /= classes;
    c.f1_mean[size_t(x)] /= classes;
  }
  const std::vector<double> s = smooth(c.f1_mean, 0.1);
  c.best = int(std::max_element(s.begin(), s.end()) - s.begin());
  return c;
}

}  // namespace ywb::eval
