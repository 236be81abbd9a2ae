// Terminal rendering of a training run: a per-epoch progress bar (losses, images/s, device memory, ETA),
// validation lines, a final table; or JSON lines (--json). Thread rules: callbacks on the trainer thread.
#pragma once
#include <chrono>
#include <string>

#include "ywb/train_events.h"

namespace ywb::cli {

class TrainProgress : public TrainObserver {
 public:
  explicit TrainProgress(bool json);
  void onPhase(TrainPhase phase, const std::string& detail) override;
  void onStep(const StepMetrics& m) override;
  void onEpoch(const EpochMetrics& m) override;
  void onLog(const std::string& line) override;
  void onFinished(const TrainSummary& s) override;

 private:
  void endBar();
  bool json_;
  bool tty_;
  bool bar_open_ = false;
  int header_epoch_ = -1;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace ywb::cli
