// What the trainer does about optimizer steps whose loss or gradients are NaN/Inf (GradScaler::step decides
// that; this class only acts on its answer). A bad step is skipped: no optimizer step, no EMA update, its
// gradients dropped, and the BatchNorm running statistics put back to what they were before its batches (a
// NaN forward pass in training mode writes NaN into them, which skipping the step alone would keep). Bad
// steps are counted per epoch and per run. kBurst consecutive bad steps make a burst: the trainer rolls back
// once to the last checkpoint with the learning rate times kRollbackLrFactor, and stops on a second burst
// (train/nonfinite_rollback.h).
// Thread rules: trainer thread only.
#pragma once
#include <torch/nn/module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

class NonFiniteGuard {
 public:
  /// Consecutive bad optimizer steps that make a burst. Ten: an isolated bad batch (a degenerate label, one
  /// corrupt image) is skipped at the cost of one step, while ten bad steps in a row on freshly shuffled
  /// batches mean the weights or the learning rate are at fault, which skipping cannot cure; ten wasted steps
  /// are a small price in any run long enough to roll back.
  static constexpr int kBurst = 10;
  /// The learning rate after a rollback, as a factor of the rate before it (the whole schedule is scaled).
  static constexpr double kRollbackLrFactor = 0.5;

  /// Before the first batch of an accumulation window: remembers the model's floating-point buffers
  /// (BatchNorm running mean and variance; one concatenated copy on their device, no host sync).
  void beginWindow(torch::nn::Module& model, int epoch, int64_t batch);
  bool windowOpen() const { return window_open_; }
  /// The optimizer stepped (or an fp16 overflow was skipped): the window closes, the bad streak ends only
  /// when `stepped`.
  void closeWindow(bool stepped);
  /// The window's step, ending with batch `last_batch` of `epoch`, was bad: puts the buffers back, counts the
  /// step, closes the window.
  void skipped(torch::nn::Module& model, int epoch, int64_t last_batch);
  /// kBurst consecutive bad steps.
  bool burst() const { return consecutive_ >= kBurst; }
  int consecutive() const { return consecutive_; }
  /// Bad steps of the current epoch; the log line naming them ("" when none). Resets the epoch's count.
  int64_t takeEpochSkipped(int epoch, std::string* log_line);
  int64_t totalSkipped() const { return total_; }
  /// Rollbacks done in this run (also those before a resume).
  int rollbacks() const { return rollbacks_; }
  void setRollbacks(int n) { rollbacks_ = n; }
  /// After a rollback: counts it and forgets the streak and the open window.
  void rolledBack();

 private:
  static std::vector<at::Tensor> floatBuffers(torch::nn::Module& model);
  at::Tensor saved_buffers_;
  bool window_open_ = false;
  int window_epoch_ = 0;
  int64_t window_first_ = 0;
  int consecutive_ = 0, rollbacks_ = 0;
  int64_t epoch_skipped_ = 0, total_ = 0;
  std::vector<std::pair<int64_t, int64_t>> epoch_ranges_;  ///< batches (0-based) of the epoch's bad steps
};

}  // namespace ywb
