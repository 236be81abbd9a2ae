// Saving a run's checkpoints from the trainer: the training state gathered into a snapshot, written now (a
// CPU run) or in the background while the next epoch trains (a GPU run: train/background_save.h), and a
// failed write handled as on_save_error says.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "train/background_save.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "train/checkpoint_state.h"
#include "train/train_session.h"
#include "ywb/train_args.h"
#include "ywb/version.h"

namespace ywb {

namespace {

// A checkpoint that could not be written: the run stops (on_save_error=stop) or goes on without it.
void onSaveError(TrainSession& s, const CheckpointSaveError& e) {
  if (s.args.on_save_error != "continue") {
    fail(e.what(), "\nThe run stops here (on_save_error=stop). ",
         e.diskFull() ? "Free some space, then continue" : "Continue",
         " it with: ywb train resume=", s.run_dir,
         "\nor pass on_save_error=continue to keep training without saving when this happens.");
  }
  s.log(std::string("WARNING: ") + e.what() +
        "\nTraining continues without this checkpoint (on_save_error=continue).");
}

void collectBackgroundSave(TrainSession& s) {
  if (!s.background_save) return;
  try {
    s.background_save->wait();
  } catch (const CheckpointSaveError& e) {
    onSaveError(s, e);
  }
}

}  // namespace

void finishCheckpoints(TrainSession& s) {
  if (!s.background_save) return;
  const RunTiming::Scope timed(&s.timing, RunSegment::Checkpoint);
  collectBackgroundSave(s);
}

void saveCheckpoints(TrainSession& s, int epochs_completed, bool is_best, const std::string& metrics_json) {
  const RunTiming::Scope timed(&s.timing, RunSegment::Checkpoint);
  collectBackgroundSave(s);  // the checkpoint before this one, if it is still being written
  s.phase(TrainPhase::Saving, "weights/last.safetensors" + std::string(is_best ? " and best" : ""));
  CheckpointParts parts;
  parts.model = s.model.ptr().get();
  parts.ema = s.ema_model.ptr().get();
  parts.optimizer = s.optimizer.get();
  parts.include_grads = true;
  CheckpointState st;
  st.epoch = epochs_completed;
  st.epochs = s.epochs;
  st.best_fitness = s.best_fitness;
  st.best_epoch = s.best_epoch;
  st.ema_updates = s.ema->updates();
  st.last_opt_step = s.last_opt_step;
  st.scaler_scale = s.scaler->currentScale();
  st.scaler_growth = s.scaler->growthTracker();
  st.elapsed = s.elapsed();
  st.images_trained = s.images_trained;
  st.train_seconds = s.train_seconds;
  st.lr_scale = s.lr_scale;
  st.nonfinite_rollbacks = s.nonfinite.rollbacks();
  st.args = trainArgsToYaml(s.args);
  st.run_dir = s.run_dir;
  st.nc = s.nc;
  st.names = nlohmann::json(s.names).dump();
  st.imgsz = s.args.imgsz;
  st.model_yaml = s.model->yaml();
  st.metrics = metrics_json;
  st.amp = s.amp_note;
  st.version = kVersion;
  st.optimizer = s.optim_choice.name;
  st.optimizer_lr = s.optim_choice.lr;
  st.optimizer_momentum = s.optim_choice.momentum;
  st.optimizer_auto = s.optim_choice.auto_chosen ? 1 : 0;
  parts.metadata = st.toMetadata();
  if (!s.checkpoints) s.checkpoints = std::make_shared<CheckpointFiles>(s.run_dir, s.last_is_good);
  const int period_epoch =
      s.args.save_period > 0 && epochs_completed % s.args.save_period == 0 ? epochs_completed : 0;
  if (s.hooks->backgroundSaves(s.device.is_cuda())) {
    // A copy, since training goes on while it is written.
    auto content = std::make_shared<const CheckpointContent>(snapshotCheckpoint(parts));
    if (!s.background_save) s.background_save = std::make_shared<BackgroundSave>();
    s.background_save->start([files = s.checkpoints, content, epochs_completed, is_best, period_epoch] {
      files->save(*content, epochs_completed, is_best, period_epoch);
    });
    return;
  }
  try {
    // Written now, from the live tensors: no 60 MB copy (its allocation in the heap competes with the GUI
    // thread's; test_training_tab's GUI-thread stall probe).
    s.checkpoints->save(liveCheckpoint(parts), epochs_completed, is_best, period_epoch);
  } catch (const CheckpointSaveError& e) {
    onSaveError(s, e);
  }
}

}  // namespace ywb
