// Training benchmarks with the real data loader: `ywb bench train` (a number of full training steps with a
// per-segment time split) and `ywb bench epoch` (whole epochs through the Trainer, incl. validation and
// checkpoints, in a temporary run folder). Same code on CPU and GPU. Torch-free.
// Thread rules: blocking calls; they use the process-wide LibTorch thread pool.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ywb/op_times.h"
#include "ywb/train_events.h"

#include "ywb/train_args.h"

namespace ywb {

struct TrainBenchOptions {
  TrainArgs args;           ///< data, model, imgsz, batch, device, workers, amp, ... as for `ywb train`
  int warmup = 3;           ///< bench train: untimed steps first
  int steps = 10;           ///< bench train: timed steps
  bool epoch_mode = false;  ///< bench epoch: run args.epochs whole epochs through the Trainer
  int ops = 0;              ///< bench train, > 0: min(steps, 5) further steps with every operator recorded
  std::string trace;        ///< bench train, non-empty: those recorded steps written there as a Chrome trace
};

/// Mean time per training step spent in one segment.
struct StepSegmentTime {
  std::string name;  ///< data_wait, h2d, forward, loss, backward, optimizer, ema, log_sync
  double ms = 0;
};

struct TrainBenchResult {
  std::string mode;  ///< "train" or "epoch"
  std::string device;
  int threads = 0;
  int batch = 0, imgsz = 0, workers = 0;
  std::string amp;  ///< what the AMP check decided
  // bench train
  int steps = 0;
  std::vector<StepSegmentTime> split;  ///< mean ms per step, in step order
  double step_ms = 0;                  ///< mean wall time of a step incl. its data wait
  double images_per_s = 0;             ///< images / total step time (incl. data wait)
  double compute_images_per_s = 0;     ///< images / step time without the data wait
  double data_wait_share = 0;          ///< data wait / step time
  OpProfileResult ops;                 ///< the recorded steps (ops= or trace=); steps 0 otherwise
  // bench epoch
  int epochs = 0;
  double setup_s = 0, train_s = 0, val_s = 0, save_s = 0, total_s = 0;
  double train_images_per_s = 0;      ///< the Trainer's own average
  double map50 = 0, map = 0;          ///< COCO-exact, last epoch
  double process_start_s = -1;        ///< process start (loading, argument parsing) until the run began
  double teardown_s = 0;              ///< after the run: loader threads joined, memory released
  double first_step_s = -1;           ///< process start to the end of the first training step (start-up)
  std::vector<TimeShare> time_split;  ///< the run's own split (scan, model build, steps, validation, ...)
  std::string leftover;               ///< why the temporary run folder could not be removed ("" when it was)
  // both
  int64_t peak_rss = 0;          ///< bytes, whole process (VmHWM)
  int64_t peak_device_mem = -1;  ///< bytes used on the training GPU (NVML, whole device); -1 on CPU
  double gpu_util = -1;          ///< mean NVML utilisation of the training GPU while timed; -1 on CPU
};

/// Runs the benchmark. Throws ywb::Error on bad options or data.
TrainBenchResult benchTrain(const TrainBenchOptions& options);

std::string trainBenchText(const TrainBenchResult& result);
std::string trainBenchJson(const TrainBenchResult& result);

}  // namespace ywb
