#include "train/nonfinite_rollback.h"

#include <torch/autograd.h>

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "train/checkpoint_state.h"
#include "train/lr_schedule.h"
#include "train/nonfinite_guard.h"
#include "train/train_session.h"
#include "ywb/results_csv.h"
#include "ywb/run_files.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

bool allFinite(const std::vector<at::Tensor>& tensors) {
  for (const auto& t : tensors) {
    if (t.is_floating_point() && !t.isfinite().all().item<bool>()) return false;
  }
  return true;
}

}  // namespace

int rollBackAfterNonFiniteBurst(TrainSession& s, int epoch) {
  finishCheckpoints(s);  // the last checkpoint may still be being written (on a GPU)
  std::ostringstream what;
  what << NonFiniteGuard::kBurst
       << " consecutive optimizer steps had a NaN/Inf loss or NaN/Inf gradients (epoch " << epoch + 1 << ", "
       << s.nonfinite.totalSkipped() << " bad steps in this run)";
  const fs::path last = fs::path(CheckpointFiles::lastPath(s.run_dir));
  std::ostringstream advice;
  advice << "Lower the learning rate (lr0=" << s.args.lr0
         << " now), check the data (`ywb dataset check data=" << s.args.data << "`)"
         << (s.autocast ? ", or train without mixed precision (amp=false)" : "");
  if (s.nonfinite.rollbacks() > 0) {
    fail("training stopped: ", what.str(),
         " again after the rollback to the last checkpoint with the learning ", "rate x", s.lr_scale, ". ",
         last.string(), " holds the last good weights. ", advice.str(), ".");
  }
  if (s.dist) {
    fail("training stopped: ", what.str(), "; a distributed run does not roll back. ", last.string(),
         " holds the last good weights. ", advice.str(), ".");
  }
  if (!fs::exists(last)) {
    fail("training stopped: ", what.str(),
         " before the first checkpoint was written, so there is nothing to ", "roll back to. ", advice.str(),
         ".");
  }
  s.log("training: " + what.str() + "; rolling back to " + last.string());
  const SafetensorsFile file = readCheckpoint(last.string());
  const CheckpointState st = CheckpointState::fromMetadata(file.metadata, last.string());
  {
    torch::NoGradGuard no_grad;
    // Exactly the checkpoint's state: no gradient or optimizer state of the failed steps survives.
    for (auto& p : s.model->parameters()) p.mutable_grad() = at::Tensor();
    s.optimizer->state().clear();
    restoreCheckpoint(file, {s.model.ptr().get(), s.ema_model.ptr().get(), s.optimizer.get(), true, {}});
    // A bad batch at the very end of the saved epoch (its window still open at the save) can have left NaN in
    // the model's BatchNorm statistics; the EMA copy, updated only by good steps, has finite ones.
    if (!allFinite(s.model->buffers())) {
      auto mb = s.model->buffers();
      auto eb = s.ema_model->buffers();
      for (size_t i = 0; i < mb.size() && i < eb.size(); ++i) mb[i].copy_(eb[i]);
      s.log("training: the checkpoint's BatchNorm statistics were not finite; taken from its EMA weights");
    }
  }
  s.ema->setUpdates(st.ema_updates);
  s.last_opt_step = st.last_opt_step;
  s.best_fitness = st.best_fitness;
  s.best_epoch = st.best_epoch;
  s.scaler->restore(st.scaler_scale, st.scaler_growth);
  if (s.mosaic_closed && st.epoch < s.closeMosaicEpoch()) {
    s.mosaic_closed = false;
    s.train_loader->setMultiImageAugment(true);
  }
  const double before = s.initial_lr;
  s.lr_scale *= NonFiniteGuard::kRollbackLrFactor;
  s.initial_lr *= NonFiniteGuard::kRollbackLrFactor;
  const double lr = s.initial_lr * lrFactor(st.epoch, s.epochs, s.args.lrf, s.args.cos_lr);
  for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j) setScheduledLr(*s.optimizer, j, lr);
  if (s.isMain()) truncateResults(run_files::path(s.run_dir, run_files::kResults), st.epoch);
  s.nonfinite.rolledBack();
  std::ostringstream os;
  os << "training: rolled back to the end of epoch " << st.epoch << " (" << last.filename().string()
     << ": model, EMA, optimizer and schedule restored); learning rate x" << NonFiniteGuard::kRollbackLrFactor
     << " from here on (initial " << before << " -> " << s.initial_lr << "); another "
     << NonFiniteGuard::kBurst << " consecutive bad steps stop the run";
  s.log(os.str());
  return st.epoch;
}

}  // namespace ywb
