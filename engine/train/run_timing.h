// Where a training run's wall time goes: named segments (scan, model build, AMP check, data wait, step,
// EMA, logging, validation stages, checkpoint writes) accumulated over the run; whatever the segments do not
// cover is "between epochs". `ywb bench epoch` prints the split; the run summary carries it.
// Thread rules: one writer (the trainer thread); read after the run.
#pragma once
#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "ywb/train_events.h"

namespace ywb {

enum class RunSegment {
  Scan,           ///< dataset scan and label cache (both splits)
  ModelBuild,     ///< model, EMA, loss, loaders, optimizer, weights transfer, checkpoint restore
  AmpCheck,       ///< the autocast-vs-fp32 comparison
  DataWait,       ///< the training thread waiting for the loader
  Step,           ///< transfer, forward, loss, backward, optimizer (clipping, scaler)
  Ema,            ///< the EMA update after each optimizer step
  Logging,        ///< per-step progress: loss read-back and observer callbacks
  ValData,        ///< validation: waiting for the loader (decode, letterbox, collate)
  ValPreprocess,  ///< validation: transfer and normalisation
  ValInference,   ///< validation: forward, decode, validation loss
  ValNms,         ///< validation: non-maximum suppression
  ValMetrics,     ///< validation: matching and the COCO-exact metrics
  Checkpoint,     ///< writing last/best/periodic checkpoints
  Count
};

/// Stable name of a segment ("scan", "data_wait", ...), used in text and JSON.
const char* runSegmentName(RunSegment s);

class RunTiming {
 public:
  using Clock = std::chrono::steady_clock;
  RunTiming() : started_(Clock::now()) {}

  void add(RunSegment s, double seconds) { seconds_[size_t(s)] += seconds; }
  double seconds(RunSegment s) const { return seconds_[size_t(s)]; }
  /// Wall seconds since construction (the start of Trainer::run).
  double wall() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }
  /// The split in segment order, then "between_epochs" = wall - sum of segments (never negative).
  std::vector<TimeShare> split() const;

  /// Adds the time from construction to destruction to a segment.
  class Scope {
   public:
    Scope(RunTiming* t, RunSegment s) : t_(t), s_(s), t0_(Clock::now()) {}
    ~Scope() {
      if (t_) t_->add(s_, std::chrono::duration<double>(Clock::now() - t0_).count());
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    RunTiming* t_;
    RunSegment s_;
    Clock::time_point t0_;
  };

 private:
  std::array<double, size_t(RunSegment::Count)> seconds_{};
  Clock::time_point started_;
};

}  // namespace ywb
