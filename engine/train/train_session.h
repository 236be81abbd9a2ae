// Everything one training run holds while it runs (model, EMA, optimizer, loaders, schedule position),
// set up from TrainArgs, plus the steps the trainer performs on it. Internal to the trainer.
// Thread rules: trainer thread only.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cuda/train_accel.h"
#include "cuda/whole_step_graph.h"
#include "data/loader.h"
#include "io/safetensors.h"
#include "loss/model_loss.h"
#include "loss/o2m_schedule.h"
#include "model/detection_model.h"
#include "train/grad_scaler.h"
#include "train/graph_ready_step.h"
#include "train/model_ema.h"
#include "train/multi_scale.h"
#include "train/nonfinite_guard.h"
#include "train/optimizer_factory.h"
#include "train/run_plots.h"
#include "train/run_timing.h"
#include "train/train_hooks.h"
#include "ywb/train_args.h"
#include "ywb/train_events.h"

namespace ywb {

class BackgroundSave;
class CheckpointFiles;
class DistContext;
class GradReducer;

struct TrainSession {
  TrainArgs args;
  TrainObserver* observer = nullptr;
  const std::atomic<bool>* stop = nullptr;
  const std::atomic<bool>* pause = nullptr;

  std::string run_dir;
  std::vector<std::string> names;
  int nc = 0;
  at::Device device{at::kCPU};
  std::shared_ptr<const ScannedSplit> train_split, val_split;
  model::DetectionModel model{nullptr};
  model::DetectionModel ema_model{nullptr};
  std::unique_ptr<ModelEma> ema;
  /// The model's loss (loss::ModelLoss: both branches of an end-to-end head), also validation's.
  std::unique_ptr<loss::ModelLoss> loss;
  /// The end-to-end loss's branch weights for the epoch being trained: set from (epoch, epochs) when each
  /// epoch starts, so a resumed, rolled-back or re-planned run has the uninterrupted run's weights.
  loss::O2mSchedule o2m{1};
  /// Each training batch's size (`multi_scale`; off: every batch at imgsz), drawn from (seed, step).
  std::optional<MultiScale> multi_scale;
  std::unique_ptr<DataLoader> train_loader, val_loader;
  int val_batch = 0;  ///< the validation loader's batch (2 x batch; halved after running out of memory)
  std::unique_ptr<cuda::TrainAccel> accel;  ///< batches and forward of the training loop (engine/cuda)
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<GradScaler> scaler;
  NonFiniteGuard nonfinite;  ///< bad (NaN/Inf) steps: counted, skipped, rolled back after a burst
  // The graph-ready step (graph_step=true; issue 33's stand-in): the fixed-shape loss, the
  // targets' run-wide capacity, and the device-held step, made from the eager objects after an optimizer step
  // and written back into them (syncBack) when an epoch ends.
  std::unique_ptr<loss::ModelLoss> graph_loss;
  int64_t target_capacity = 0;
  std::unique_ptr<GraphReadyStep> graph_step;
  /// accumulate 1 (nbs <= batch): forward, loss, backward and update run as one body (WholeStepGraph), one
  /// CUDA graph with cuda_graphs=true on a GPU; made and dropped with graph_step.
  bool whole_step = false;
  std::unique_ptr<cuda::WholeStepGraph> whole_graph;
  GraphStepCounts graph_counts;  ///< graph_step's counts after its last step (to tell each step's outcome)
  double lr_scale = 1.0;  ///< initial_lr relative to the arguments' (lowered by a rollback; checkpointed)
  OptimizerChoice optim_choice;
  double initial_lr = 0.01;
  double warmup_bias_lr = 0.1;
  int accumulate = 1;
  int64_t warmup_iters = -1;
  int64_t last_opt_step = -1;
  bool autocast = false;
  at::ScalarType amp_dtype = at::kFloat;
  std::string amp_note = "off";
  std::string resumed_amp;  ///< amp_note of the checkpoint a resumed run continues (empty: a new run)
  // Progress
  int start_epoch = 0;
  int epochs_run = 0;  ///< epochs completed in this session
  int epochs = 0;
  int best_epoch = -1;
  double best_fitness = -1;
  bool mosaic_closed = false;
  double elapsed_before = 0;  ///< seconds trained before this session (resume)
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int64_t images_trained = 0;
  double train_seconds = 0;
  /// Seconds from the process's start and from the run's start to the end of the first training step (-1
  /// until it ends): the start-up figure of issue 33, logged once and reported in the summary.
  double first_step_s = -1, first_step_run_s = -1;
  RunTiming timing;  ///< where this session's wall time goes
  // plots=true: the last validation's results and val_batch pictures (validateEpoch), and those of the best
  // epoch validated in this process, drawn at the run's end (train/run_plots.h).
  std::optional<ValPlots> last_val, best_val;
  // Benchmark and test hooks around the step (train/train_hooks.h); a normal run has the plain ones.
  std::shared_ptr<TrainHooks> hooks = std::make_shared<TrainHooks>();
  // Called on the training thread after every step (Trainer: hands over EMA snapshots); may be empty.
  std::function<void()> after_step;
  // Checkpoint files of the run (train/checkpoint_files.h), made at the first save. `last_is_good`: false
  // when resumed from a file other than weights/last.safetensors (last may be the damaged one: not kept as
  // previous).
  std::shared_ptr<CheckpointFiles> checkpoints;
  bool last_is_good = true;
  // The checkpoint being written while training goes on (train/background_save.h), made at the first
  // background save; declared after `checkpoints`, so it is destroyed (waited for) first.
  std::shared_ptr<BackgroundSave> background_save;
  double scaler_restore_scale = 65536.0;
  int64_t scaler_restore_growth = 0;
  // Distributed run (engine/dist): null in a single-process run. The reducer is declared after the
  // context so it is destroyed first.
  std::shared_ptr<DistContext> dist;
  std::shared_ptr<GradReducer> reducer;
  bool isMain() const { return !dist || distRank() == 0; }
  int distRank() const;
  int distWorld() const;
  /// First epoch (0-based) trained without Mosaic, where Ultralytics closes it and rebuilds its loader;
  /// -1 when close_mosaic is 0.
  int closeMosaicEpoch() const;
  /// Whether (0-based) `epoch` trains without Mosaic: closed already, or at or after closeMosaicEpoch().
  bool mosaicClosedIn(int epoch) const;
  /// Whether this rank validates after `epoch`: the main rank, every epoch with `val`, else the last one.
  bool validatesAfter(int epoch) const;

  double elapsed() const {
    return elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  void phase(TrainPhase p, const std::string& detail) const {
    if (observer) observer->onPhase(p, detail);
  }
  void log(const std::string& line) const {
    if (observer) observer->onLog(line);
  }
};

/// Scans the dataset, builds model/EMA/loss/loaders/optimizer, runs the AMP check, restores a checkpoint.
void setupSession(TrainSession& s, const SafetensorsFile* resume);

/// Decides the training precision (amp_check.cpp): mixed precision only where its outputs agree with fp32's
/// and, on a CPU, where it is measured faster. Sets autocast, amp_dtype and amp_note, and logs why.
void ampCheck(TrainSession& s);

/// (Re)builds the validation loader with `batch` images per batch.
void buildValLoader(TrainSession& s, int batch);

/// Trains one epoch. Returns false when a stop was requested mid-epoch. `tloss` gets the mean losses.
bool trainEpoch(TrainSession& s, int epoch, double tloss[3], double lr_out[3]);

/// After `epoch`'s steps: starts the training loader on the next epoch (if there is one) with the settings
/// that epoch will have, so that its first batches are built while this one validates and saves.
void prefetchNextEpoch(TrainSession& s, int epoch);

/// Validates the EMA weights after `epoch` (epoch_validation.cpp); the metrics the epoch event carries.
EpochMetrics validateEpoch(TrainSession& s, int epoch);

/// Whether an exception's text says the device (or host) ran out of memory.
bool isOutOfMemory(const std::string& why);

/// Saves weights/last.safetensors (and best, and periodic copies) with the full training state: on a GPU (or
/// where the test hook asks, TrainHooks::backgroundSaves) a snapshot written in the background, whose error
/// the next call or finishCheckpoints handles.
void saveCheckpoints(TrainSession& s, int epochs_completed, bool is_best, const std::string& metrics_json);
/// Waits for the checkpoint being written in the background, if any, and handles its error as
/// saveCheckpoints does (on_save_error): before anything reads the checkpoint files or the run ends.
void finishCheckpoints(TrainSession& s);

}  // namespace ywb
