#include "train/auto_batch.h"

#include <cmath>
#include <cstdio>
#include <exception>

#include "core/error.h"

namespace ywb {
namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / double(1LL << 30));
  return buf;
}

}  // namespace

double autoBatchFraction(bool cuda_graphs, double target) {
  return cuda_graphs ? target / kGraphedStepMemoryFactor : target;
}

AutoBatchResult chooseBatch(AutoBatchProbe& probe, double fraction, int fallback) {
  AutoBatchResult r;
  const int64_t total = probe.totalBytes();
  for (int b : {1, 2, 4, 8, 16}) {
    try {
      probe.trial(b);
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("out of memory") == std::string::npos) throw;
      r.failed_at = b;
      break;
    }
    r.samples.emplace_back(b, probe.usedBytes());
  }
  auto useFallback = [&](const std::string& why) {
    r.batch = fallback;
    r.fallback = true;
    r.note = "AutoBatch: " + why + "; using the default batch=" + std::to_string(fallback);
    return r;
  };
  if (r.samples.size() < 2) {
    if (r.failed_at == 2) {  // only batch 1 fits
      r.batch = 1;
      r.note = "AutoBatch: batch 2 ran out of memory; using batch=1";
      return r;
    }
    return useFallback("fewer than two batch sizes could be profiled");
  }
  // Least squares: used = a + k * batch.
  double n = double(r.samples.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [b, m] : r.samples) {
    sx += b;
    sy += double(m);
    sxx += double(b) * b;
    sxy += double(b) * double(m);
  }
  r.slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  r.intercept = (sy - r.slope * sx) / n;
  if (!(r.slope > 0)) return useFallback("memory did not grow with the batch size");
  const double target = fraction * double(total);
  int b = int(std::floor((target - r.intercept) / r.slope));
  if (r.failed_at > 0 && b >= r.failed_at) b = r.samples.back().first;  // never a size that failed
  if (b < 1 || b > 1024)
    return useFallback("the fit predicts batch " + std::to_string(b) + ", out of [1, 1024]");
  r.batch = b;
  char pct[16];
  std::snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * fraction);
  r.note = "AutoBatch: batch=" + std::to_string(b) + " for " + pct + " of " + gib(double(total)) +
           " (predicted " + gib(r.intercept + r.slope * b) + "; " + gib(r.slope) + " per image";
  if (r.failed_at > 0) r.note += "; batch " + std::to_string(r.failed_at) + " ran out of memory";
  r.note += ")";
  return r;
}

}  // namespace ywb
