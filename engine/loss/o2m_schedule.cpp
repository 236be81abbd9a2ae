#include "loss/o2m_schedule.h"

#include <algorithm>

#include "core/error.h"

namespace ywb::loss {

O2mSchedule::O2mSchedule(int epochs, int epoch) : epochs_(epochs), epoch_(epoch) {
  if (epochs < 1 || epoch < 0) fail("o2m schedule: epoch ", epoch, " of ", epochs);
  o2m_ = o2mAt(epoch_, epochs_);
  o2o_ = o2oFor(o2m_);
}

void O2mSchedule::update() {
  ++epoch_;
  o2m_ = o2mAt(epoch_, epochs_);
  o2o_ = o2oFor(o2m_);
}

double O2mSchedule::o2oFor(double o2m) {
  return std::max(1.0 - o2m, 0.0);
}

double O2mSchedule::o2mAt(int epoch, int epochs) {
  // At epoch 0 this is 1 * (0.8 - 0.1) + 0.1, which rounds to exactly 0.8, Ultralytics' starting value.
  const double progress = double(std::max(epoch, 0)) / double(std::max(epochs - 1, 1));
  return std::max(1.0 - progress, 0.0) * (kStart - kFinal) + kFinal;
}

}  // namespace ywb::loss
