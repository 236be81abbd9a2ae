#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace ywb {

double lrFactor(double epoch, int epochs, double lrf, bool cos_lr) {
  constexpr double kPi = 3.14159265358979323846;
  if (cos_lr) return ((1 - std::cos(epoch * kPi / epochs)) / 2) * (lrf - 1) + 1;
  return std::max(1 - epoch / epochs, 0.0) * (1.0 - lrf) + lrf;
}

int64_t warmupIterations(double warmup_epochs, int64_t batches_per_epoch) {
  if (warmup_epochs <= 0) return -1;
  // Python's round() (half to even), as Ultralytics computes it.
  return std::max<int64_t>(int64_t(roundHalfEven(warmup_epochs * double(batches_per_epoch))), 100);
}

double interp(double x, double x0, double x1, double y0, double y1) {
  if (x <= x0) return y0;
  if (x >= x1) return y1;
  // NumPy's np.interp, operation for operation (its rounding, not only its value): slope first.
  const double slope = (y1 - y0) / (x1 - x0);
  return slope * (x - x0) + y0;
}

double roundHalfEven(double x) {
  return std::nearbyint(x);
}  // default FE_TONEAREST is half-to-even

int accumulateSteps(int nbs, int batch, int64_t iteration, int64_t warmup_iters) {
  const int full = std::max(int(roundHalfEven(double(nbs) / batch)), 1);  // Python round() is half-to-even
  if (warmup_iters > 0 && iteration <= warmup_iters) {
    const double ramp = interp(double(iteration), 0, double(warmup_iters), 1, double(nbs) / batch);
    return std::max(1, int(roundHalfEven(ramp)));
  }
  return full;
}

double warmupLr(int group, int64_t iteration, int64_t warmup_iters, double warmup_bias_lr, double target_lr) {
  return interp(double(iteration), 0, double(warmup_iters), group == 0 ? warmup_bias_lr : 0.0, target_lr);
}

}  // namespace ywb
