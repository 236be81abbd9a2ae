// What a training run reports while it runs: phases, step and epoch metrics, log lines, the summary.
// Thread rules: TrainObserver callbacks run on the trainer thread (rank 0 only); they must be cheap:
// copy the values and return (the GUI pushes them into a locked queue or a queued signal).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

/// Where a run is. Shown on screen so a user sees where a run is stuck.
enum class TrainPhase {
  Scanning,     ///< scanning and verifying the dataset
  Building,     ///< building the model, optimizer and loaders
  AmpCheck,     ///< comparing mixed-precision and fp32 outputs
  Warmup,       ///< training inside the warmup iterations
  Training,     ///< training epoch N
  CloseMosaic,  ///< Mosaic/MixUp switched off for the final epochs
  Validating,   ///< validation on the val split
  Saving,       ///< writing checkpoints
  Finished,
  Stopped,  ///< stopped by the user; `last` checkpoint saved
  Failed
};

/// Short English name of a phase ("scanning data", "training", ...).
const char* trainPhaseName(TrainPhase phase);

/// Metrics of one optimisation step (emitted at log cadence).
struct StepMetrics {
  int epoch = 0;  ///< 0-based
  int epochs = 0;
  int64_t batch = 0;  ///< 0-based batch index within the epoch
  int64_t batches = 0;
  int64_t iteration = 0;             ///< global batch counter
  double box = 0, cls = 0, dfl = 0;  ///< running means over the epoch so far
  double lr[3] = {0, 0, 0};          ///< pg0 biases, pg1 weights, pg2 BatchNorm
  double images_per_s = 0;
  double data_wait_s = 0;  ///< time this step waited for the loader
  double compute_s = 0;    ///< time this step spent in forward/backward/optimizer
  /// Bytes the tensor allocator held from the device (its reserved pool: what Ultralytics' GPU_mem column
  /// shows, torch.cuda.memory_reserved; 0 on a CPU), the most at any moment since the previous step's report
  /// (cuDNN's autotuner can empty the pool within a step). NVML's count adds the CUDA context and other
  /// processes.
  int64_t device_mem = 0;
  /// The most bytes tensors occupied at any moment since the previous step's report (the allocator's peak,
  /// reset at each report; 0 on a CPU): the step's real high-water mark, which the pool only bounds.
  int64_t device_mem_peak = 0;
  int instances = 0;  ///< boxes in this batch
  int imgsz = 0;
  double elapsed_s = 0;  ///< since the run started (this session)
  double eta_s = 0;      ///< estimate for the remaining run
  /// The model trains with the end-to-end loss (YOLO26): box/cls/dfl are its one-to-one branch's items, and
  /// `o2m` is the one-to-many branch's weight in this epoch (EpochMetrics::o2m).
  bool end2end = false;
  double o2m = 0.8;
  /// DFL bins per box side; 1 (YOLO26): no DFL, and `dfl` holds the L1 term on the box distances.
  int reg_max = 16;
};

/// Per-class validation numbers.
struct ClassResult {
  std::string name;
  int64_t instances = 0;
  double precision = 0, recall = 0, ap50 = -1, ap = -1;
};

/// Results of one epoch (train losses, validation losses and COCO-exact metrics).
struct EpochMetrics {
  int epoch = 0;  ///< 0-based
  int epochs = 0;
  double time_s = 0;  ///< since the run started (cumulative, like Ultralytics' `time` column)
  double train_box = 0, train_cls = 0, train_dfl = 0;
  double val_box = 0, val_cls = 0, val_dfl = 0;
  double precision = 0, recall = 0, map50 = 0, map = 0;  ///< COCO-exact mAP
  double lr[3] = {0, 0, 0};
  double fitness = 0;  ///< mAP50-95
  bool best = false;   ///< this epoch is the new best
  bool validated = false;
  std::vector<ClassResult> classes;
  /// Training images that failed to load in this epoch (deleted or damaged after the scan), one message per
  /// image naming its file; each was replaced by a grey image and the run went on.
  std::vector<std::string> failed_images;
  /// Optimizer steps of this epoch skipped because their loss or gradients were NaN/Inf.
  int64_t nonfinite_steps = 0;
  /// The one-to-many weight of the end-to-end loss in this epoch (0.8 at the first epoch to 0.1 at the last;
  /// the one-to-one branch gets 1 - o2m). Only end-to-end models (YOLO26) train with it; the schedule is kept
  /// for every run so that a resumed run continues it.
  double o2m = 0.8;
  bool end2end = false;  ///< as StepMetrics::end2end: the train losses are the one-to-one branch's
  int reg_max = 16;      ///< as StepMetrics::reg_max: 1 means train_dfl/val_dfl hold the L1 term
};

/// Wall seconds of one part of a run (see `ywb bench epoch`).
struct TimeShare {
  std::string name;
  double seconds = 0;
};

struct TrainSummary {
  std::string run_dir;
  std::string last, best;  ///< checkpoint paths
  int epochs_completed = 0;
  int best_epoch = -1;  ///< 0-based
  double best_fitness = 0;
  EpochMetrics best_metrics;
  bool stopped = false;        ///< stopped by the user
  bool early_stopped = false;  ///< patience ran out
  std::string stop_reason;
  double seconds = 0;
  double images_per_s = 0;                 ///< average training throughput
  std::string amp;                         ///< "fp16", "bf16" or "off", with the reason when it fell back
  int64_t failed_image_loads = 0;          ///< images that failed to load, summed over the epochs
  std::vector<std::string> failed_images;  ///< the distinct messages (first 100), naming the files
  std::vector<TimeShare> time_split;       ///< where the wall time went (engine/train/run_timing.h)
  int64_t nonfinite_steps = 0;  ///< optimizer steps skipped for a NaN/Inf loss or gradients, whole run
  int nonfinite_rollbacks = 0;  ///< rollbacks to the last checkpoint after a burst of such steps
  /// Start-up: seconds from the process's start (and from the run's) to the end of its first training step
  /// (-1: no step ran). Also logged when it happens, so `--json` consumers see it live.
  double first_step_s = -1, first_step_run_s = -1;
};

/// Receives a run's events. Default implementations ignore them.
class TrainObserver {
 public:
  virtual ~TrainObserver() = default;
  virtual void onPhase(TrainPhase /*phase*/, const std::string& /*detail*/) {}
  virtual void onStep(const StepMetrics& /*m*/) {}
  virtual void onEpoch(const EpochMetrics& /*m*/) {}
  virtual void onLog(const std::string& /*line*/) {}
  virtual void onFinished(const TrainSummary& /*s*/) {}
};

}  // namespace ywb
