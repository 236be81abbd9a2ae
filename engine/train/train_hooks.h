// Hooks into the training step for benchmarks and tests: what a normal run does not do (time every segment,
// stop after N steps, fail like a GPU that ran out of memory). The epoch loop calls them at fixed points and
// knows nothing of what they do.
// Thread rules: called on the trainer thread only.
#pragma once
#include <ATen/Device.h>

#include <cstdint>
#include <memory>

#include "core/op_profile.h"
#include "train/step_profiler.h"

namespace ywb {

class TrainHooks {
 public:
  virtual ~TrainHooks() = default;
  /// Before the forward pass of a step with `images` images; may throw (a simulated failure).
  virtual void beforeStep(int64_t images);
  /// The per-segment step timer, or nullptr (a normal run: no device waits at segment boundaries).
  virtual StepProfiler* profiler() { return nullptr; }
  /// After a step; true ends the epoch early.
  virtual bool afterStep() { return false; }
  /// Before the forward pass of each training batch: true fills the batch's input with NaN, so the forward
  /// pass (BatchNorm statistics included), the loss and the gradients all turn NaN, as a corrupt input does.
  virtual bool poisonBatch();
  /// Whether checkpoints are written in the background (train/background_save.h): on a GPU (`cuda`), unless
  /// YWB_BACKGROUND_SAVES=0|1 says otherwise (a test hook: the CPU runs the GPU's way of saving).
  virtual bool backgroundSaves(bool cuda);

 private:
  int64_t batches_seen_ = 0;  ///< training batches of this session so far (rollbacks do not reset it)
};

/// `ywb bench train`: every segment timed, and the epoch ends once `step_limit` steps have run in total.
/// With `record_from` >= 0, every LibTorch operator is recorded from that step on (takeRecorder()).
class BenchTrainHooks : public TrainHooks {
 public:
  BenchTrainHooks(at::Device device, int64_t step_limit, int64_t record_from = -1)
      : profiler_(device), step_limit_(step_limit), record_from_(record_from) {}
  void beforeStep(int64_t images) override {
    TrainHooks::beforeStep(images);
    if (steps_run_ == record_from_ && !recorder_) recorder_ = std::make_unique<OpRecorder>();
  }
  /// The recording started at `record_from` (nullptr before); stop it on the trainer thread.
  std::unique_ptr<OpRecorder> takeRecorder() { return std::move(recorder_); }
  StepProfiler* profiler() override { return &profiler_; }
  bool afterStep() override { return ++steps_run_ >= step_limit_; }
  int64_t stepsRun() const { return steps_run_; }
  bool done() const { return steps_run_ >= step_limit_; }
  const StepProfiler& stepProfiler() const { return profiler_; }

 private:
  StepProfiler profiler_;
  int64_t step_limit_;
  int64_t record_from_;
  int64_t steps_run_ = 0;
  std::unique_ptr<OpRecorder> recorder_;
};

}  // namespace ywb
