// The values each `ywb tune` iteration trains with (ywb/tune.h tuneCandidate): the base arguments first, then
// mutations of the best runs so far.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "core/rng.h"
#include "train/tune_files.h"
#include "ywb/tune.h"

namespace ywb {
namespace {

constexpr size_t kParents = 5;           // parents are drawn from the best five rows
constexpr double kMutationChance = 0.8;  // each value changes with this probability
constexpr double kSigma = 0.2;           // the standard step of a change
constexpr int kAttempts = 1000;          // draws until a value changes (a space of lo == hi never does)

double roundedValue(double v, const TuneDimension& d) {
  v = std::clamp(v, d.lo, d.hi);
  if (trainArgSpec(d.name).type == ArgType::Int)
    return std::clamp(std::round(v), std::ceil(d.lo), std::floor(d.hi));
  char text[32];
  std::snprintf(text, sizeof text, "%.5g", v);  // 5 significant digits
  return std::clamp(std::strtod(text, nullptr), d.lo, d.hi);
}

// A parent among the best rows, more likely the fitter it is (weights: fitness above the worst of them, plus
// a little so that equal rows are equally likely).
const TuneRow& pickParent(const std::vector<TuneRow>& rows, Rng& rng) {
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rows[a].fitness > rows[b].fitness; });
  order.resize(std::min(order.size(), kParents));
  double worst = rows[order.back()].fitness;
  std::vector<double> weight;
  double total = 0;
  for (const size_t i : order) total += weight.emplace_back(rows[i].fitness - worst + 1e-6);
  double u = rng.uniform() * total;
  for (size_t k = 0; k < order.size(); ++k) {
    if (u < weight[k]) return rows[order[k]];
    u -= weight[k];
  }
  return rows[order.back()];
}

}  // namespace

std::vector<double> tuneCandidate(const std::vector<TuneDimension>& space, const std::vector<TuneRow>& rows,
                                  const TrainArgs& base, uint64_t seed, int iteration) {
  std::vector<double> out;
  if (rows.empty()) {  // the arguments as given, held to the space
    out = spaceValues(base, space);
    for (size_t i = 0; i < space.size(); ++i) out[i] = std::clamp(out[i], space[i].lo, space[i].hi);
    return out;
  }
  Rng rng(mixSeed(seed, uint64_t(iteration), 0x74756e65 /* "tune" */));
  const TuneRow& parent = pickParent(rows, rng);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    out.clear();
    bool changed = false;
    const double size = rng.uniform();  // one step size for this draw's values
    for (size_t i = 0; i < space.size(); ++i) {
      const TuneDimension& d = space[i];
      const double x = i < parent.values.size() ? parent.values[i] : d.lo;
      double v = x;
      if (rng.chance(kMutationChance)) {
        const double f = std::clamp(1 + d.gain * kSigma * rng.normal() * size, 0.3, 3.0);
        // A zero would stay zero under a factor: it moves by the factor's change times a tenth of its range.
        v = x == 0 ? (f - 1) * (d.hi - d.lo) * 0.1 : x * f;
      }
      out.push_back(roundedValue(v, d));
      changed = changed || out.back() != x;
    }
    if (changed) break;
  }
  return out;
}

}  // namespace ywb
