// A complete, resumable training run: data, model, AMP, EMA, schedules, validation, checkpoints.
// Thread rules: run() blocks and owns every torch object on the calling thread; requestStop() and
// setPaused() are safe from any other thread (atomic flags checked between batches); so are
// requestEmaSnapshot() and emaSnapshot() (the copy is made on the training thread, handed over under a
// mutex).
#pragma once
#include <memory>
#include <string>

#include "ywb/feature_maps.h"
#include "ywb/train_args.h"
#include "ywb/train_events.h"

namespace ywb {

class Trainer {
 public:
  /// `args.resume` (a run folder or checkpoint) continues that run; the other arguments then come from it.
  explicit Trainer(TrainArgs args);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// The observer must outlive run(); nullptr for none.
  void setObserver(TrainObserver* observer);
  /// Runs to the end (epochs, time budget, patience, or a stop request). Throws ywb::Error on failure,
  /// after reporting TrainPhase::Failed to the observer. Running out of device memory in the first epoch
  /// halves the batch and retries (at most 3 times), saying so in the log.
  TrainSummary run();
  /// Finish the current step, save `last`, and return from run().
  void requestStop();
  void setPaused(bool paused);
  bool paused() const;
  const TrainArgs& args() const;
  /// Asks for a CPU copy of the EMA weights, made on the training thread after the current step (costs one
  /// model copy there). Single-process runs only.
  void requestEmaSnapshot();
  /// The latest EMA copy (nullptr before the first); it stays valid while the run goes on.
  std::shared_ptr<ModelHandle> emaSnapshot() const;

 private:
  TrainSummary runOnce(const TrainArgs& args);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Ultralytics' boolean form of `resume=` on a command line, turned into a path: `false` is no resume; `true`
/// continues `model=` when that names a checkpoint or a run folder (model= is then not an argument of the
/// run), else the run under `project` whose weights/last.safetensors was written last. Any other value, and a
/// file or folder literally named true/false, is a path and stays. Returns a line saying which run `true`
/// chose ("" when nothing changed). Throws ywb::Error when `true` finds no run.
std::string resolveResumeFlag(TrainArgs& args);

/// Resolves `resume=` (a run folder, or a checkpoint file) to the checkpoint path; throws when missing.
std::string resolveResumeCheckpoint(const std::string& run_or_checkpoint);

/// The arguments a run will really use: `args` itself, or for `resume=` the checkpoint's own arguments (with
/// `resume` kept). Decide anything about the run - such as how many processes it needs - from these, not
/// from the caller's. Reads only the checkpoint's header. A run folder with args.yaml but no checkpoint yet
/// (its process died in the first epoch) resolves to its args.yaml: resuming it starts it over in place.
/// Throws ywb::Error for a missing or broken checkpoint.
TrainArgs resolveTrainArgs(const TrainArgs& args);

}  // namespace ywb
