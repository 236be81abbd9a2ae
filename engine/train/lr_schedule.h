// Ultralytics' learning-rate schedule, warmup and accumulation arithmetic as pure functions.
// Thread rules: pure functions.
#pragma once
#include <cstdint>

namespace ywb {

/// Learning-rate factor for `epoch` (0-based): linear (1 - e/E)(1 - lrf) + lrf, or cosine one-cycle from 1 to
/// lrf.
double lrFactor(double epoch, int epochs, double lrf, bool cos_lr);

/// Number of warmup iterations: max(round(warmup_epochs * batches_per_epoch), 100) (round half to even, as
/// Python), or -1 without warmup.
int64_t warmupIterations(double warmup_epochs, int64_t batches_per_epoch);

/// Linear interpolation of x in [x0, x1] onto [y0, y1], clamped like numpy.interp.
double interp(double x, double x0, double x1, double y0, double y1);

/// Gradient-accumulation steps: max(round(nbs / batch), 1); during warmup it ramps from 1 (numpy rounding).
int accumulateSteps(int nbs, int batch, int64_t iteration, int64_t warmup_iters);

/// numpy-style round half to even (np.round), used wherever Ultralytics rounds with numpy.
double roundHalfEven(double x);

/// Learning rate of parameter group `group` (0 = biases, 1 = weights, 2 = BatchNorm weights) at
/// `iteration` during warmup: bias lr falls from warmup_bias_lr, the others rise from 0, to lr0 * factor.
double warmupLr(int group, int64_t iteration, int64_t warmup_iters, double warmup_bias_lr, double target_lr);

}  // namespace ywb
