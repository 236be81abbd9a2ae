#include "ywb/trainer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "dist/dist_context.h"
#include "dist/dist_training.h"
#include "model/model_handle_impl.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "train/checkpoint_state.h"
#include "train/epoch_decision.h"
#include "train/lr_schedule.h"
#include "train/nonfinite_rollback.h"
#include "train/resume_args.h"
#include "train/run_dir.h"
#include "train/run_log.h"
#include "train/run_plots.h"
#include "train/train_session.h"
#include "train/validator.h"
#include "ywb/heap.h"
#include "ywb/metrics.h"
#include "ywb/results_csv.h"
#include "ywb/run_files.h"
#include "ywb/weights.h"

namespace fs = std::filesystem;

namespace ywb {

struct Trainer::Impl {
  TrainArgs args;
  TrainObserver* observer = nullptr;
  std::atomic<bool> stop{false};
  std::atomic<bool> pause{false};
  std::atomic<bool> snapshot_wanted{false};
  mutable std::mutex snapshot_mutex;  // guards snapshot
  std::shared_ptr<ModelHandle> snapshot;
};

Trainer::Trainer(TrainArgs args) : impl_(std::make_unique<Impl>()) {
  impl_->args = std::move(args);
}
Trainer::~Trainer() = default;
void Trainer::setObserver(TrainObserver* o) {
  impl_->observer = o;
}
void Trainer::requestStop() {
  impl_->stop = true;
}
void Trainer::setPaused(bool p) {
  impl_->pause = p;
}
bool Trainer::paused() const {
  return impl_->pause;
}
const TrainArgs& Trainer::args() const {
  return impl_->args;
}
void Trainer::requestEmaSnapshot() {
  impl_->snapshot_wanted = true;
}
std::shared_ptr<ModelHandle> Trainer::emaSnapshot() const {
  const std::lock_guard<std::mutex> lock(impl_->snapshot_mutex);
  return impl_->snapshot;
}

namespace {

// Training images that failed to load this epoch (deleted or damaged after the scan; the loader put grey in
// their place): named in the log, carried by the epoch event and summed in the summary. The run goes on.
void reportFailedImages(TrainSession& s, int epoch, std::vector<std::string> failed, EpochMetrics& em,
                        TrainSummary& sum) {
  std::sort(failed.begin(), failed.end());  // one line per image, though Mosaic may have drawn it twice
  failed.erase(std::unique(failed.begin(), failed.end()), failed.end());
  em.failed_images = failed;
  if (failed.empty()) return;
  sum.failed_image_loads += int64_t(failed.size());
  std::string names;
  for (const auto& f : failed) {
    if (sum.failed_images.size() < 100 &&
        std::find(sum.failed_images.begin(), sum.failed_images.end(), f) == sum.failed_images.end())
      sum.failed_images.push_back(f);
    names += "\n  " + f;
  }
  s.log(std::to_string(failed.size()) + " training image(s) failed to load in epoch " +
        std::to_string(epoch + 1) + " and were replaced by grey (changed since the scan?):" + names);
}

std::string metricsJson(const EpochMetrics& m) {
  return nlohmann::json{{"epoch", m.epoch + 1},       {"precision", m.precision}, {"recall", m.recall},
                        {"mAP50", m.map50},           {"mAP50-95", m.map},        {"fitness", m.fitness},
                        {"val_box", m.val_box},       {"val_cls", m.val_cls},     {"val_dfl", m.val_dfl},
                        {"metric_kind", "COCO-exact"}}
      .dump();
}

}  // namespace

namespace {

// Thrown when the device runs out of memory during a run's first epoch: the caller retries smaller.
struct FirstEpochOom {
  std::string message, run_dir;
  int batch = 0;  ///< the batch the run used (AutoBatch's choice for batch=-1 or a fraction)
};

// A resume of a run that has trained all its epochs: nothing to do, and how to train longer.
TrainSummary finishedAlready(TrainSession& s, const CheckpointState& st) {
  TrainSummary sum;
  sum.run_dir = st.run_dir;
  sum.epochs_completed = st.epoch;
  sum.last = CheckpointFiles::lastPath(st.run_dir);
  sum.best = fs::exists(CheckpointFiles::bestPath(st.run_dir)) ? CheckpointFiles::bestPath(st.run_dir) : "";
  sum.seconds = st.elapsed;
  sum.amp = st.amp;
  sum.stop_reason =
      "the run has already trained all its " + std::to_string(st.epoch) +
      " epochs; nothing to resume (metrics in results.csv). To train longer: ywb train resume=" +
      s.args.resume + " epochs=" + std::to_string(st.epoch + 10) + " (any count above " +
      std::to_string(st.epoch) + ")";
  s.log(sum.stop_reason);
  s.phase(TrainPhase::Finished, sum.stop_reason);
  if (s.observer) s.observer->onFinished(sum);
  return sum;
}

// Says what a resume changed, and records the arguments the run now uses in args.yaml (rank 0).
void noteResumeChanges(TrainSession& s, const ResumedArgs& r) {
  for (const auto& c : r.changes) s.log("resume: " + c);
  for (const auto& w : r.warnings) s.log("WARNING: " + w);
  if (!s.isMain()) return;
  TrainArgs recorded = s.args;
  recorded.resume.clear();
  writeFileAtomic(run_files::path(s.run_dir, run_files::kArgs), trainArgsToYaml(recorded));
}

}  // namespace

TrainSummary Trainer::run() {
  // After the run's objects are gone (also on failure): their memory goes back to the system, so a process
  // that starts run after run (the GUI) does not keep every run's peak.
  struct ReleaseOnExit {
    ~ReleaseOnExit() { releaseFreeHeapMemory(); }
  } release;
  TrainArgs args = impl_->args;
  for (int retry = 0;; ++retry) {
    try {
      return runOnce(args);
    } catch (const FirstEpochOom& oom) {
      if (retry >= 3 || oom.batch <= 1) {
        const std::string why = oom.message + " (still out of memory after " + std::to_string(retry) +
                                " retries with smaller batches; lower imgsz= or use a smaller model)";
        if (impl_->observer) impl_->observer->onPhase(TrainPhase::Failed, why);
        throw Error(why);
      }
      const int smaller = oom.batch / 2;
      if (impl_->observer) {
        impl_->observer->onLog("out of memory in the first epoch with batch=" + std::to_string(oom.batch) +
                               ": freed the run's memory, retrying with batch=" + std::to_string(smaller) +
                               " (retry " + std::to_string(retry + 1) + " of 3)");
      }
      args.batch = smaller;
      args.batch_fraction = 0;
      // Continue in the same run folder.
      const std::filesystem::path dir(oom.run_dir);
      args.project = dir.parent_path().string();
      args.name = dir.filename().string();
      args.exist_ok = true;
    }
  }
}

TrainSummary Trainer::runOnce(const TrainArgs& args) {
  TrainSession s;
  s.args = args;
  RunLog run_log(impl_->observer);  // <run>/train.log, in front of the caller's observer
  s.observer = &run_log;
  s.stop = &impl_->stop;
  s.pause = &impl_->pause;
  s.after_step = [impl = impl_.get(), &s] {
    if (!impl->snapshot_wanted.exchange(false) || s.ema_model.is_empty()) return;
    model::DetectionModel copy = model::cloneModel(s.ema_model);
    copy->to(at::kCPU);
    copy->eval();
    auto handle = std::make_shared<ModelHandle>(std::make_unique<ModelHandle::Impl>(std::move(copy)));
    const std::lock_guard<std::mutex> lock(impl->snapshot_mutex);
    impl->snapshot = std::move(handle);
  };
  try {
    std::optional<SafetensorsFile> resume;
    ResumedArgs resumed;
    bool start_over = false;                   // resume= of a run that died before its first checkpoint
    std::string session = "training started";  // the line this session starts with in train.log
    if (!s.args.resume.empty() && !startOverArgsYaml(s.args.resume).empty()) {
      start_over = true;
      s.run_dir = s.args.resume;
      s.args = resolveTrainArgs(s.args);
      s.args.resume.clear();
    } else if (!s.args.resume.empty()) {
      resume =
          readResumeCheckpoint(s.args.resume);  // verified; a damaged file names the intact one beside it
      const CheckpointState st = CheckpointState::fromMetadata(resume->metadata, s.args.resume);
      resumed = resumeArgsFrom(st, s.args, resolveResumeCheckpoint(s.args.resume));
      s.args = resumed.args;
      s.run_dir = st.run_dir;
      session = "resumed at epoch " + std::to_string(st.epoch + 1);
      if (st.epoch >= resumeEpochCount(st, s.args)) {
        // All epochs trained; a run stopped while its end-of-run plots were written sets up again (no epoch
        // to train) to write them.
        if (!s.args.plots || runPlotsFinished(st.run_dir)) return finishedAlready(s, st);
        session = "resumed after its last epoch to write its end-of-run plots (stopped while writing them)";
      }
    }
    s.args.validate();
    s.dist = joinDistributedRun(s.args);
    if (!s.isMain()) s.observer = nullptr;  // rank 0 alone reports
    if (!resume && !start_over && s.isMain()) {
      s.run_dir = makeRunDir(s.args.project, s.args.name, s.args.exist_ok);
      writeFileAtomic(run_files::path(s.run_dir, run_files::kArgs), trainArgsToYaml(s.args));
    }
    if (start_over) session = "started over from its args.yaml";
    if (s.isMain()) run_log.open(s.run_dir, runLogSessionHeader(session));
    s.log("run folder " + s.run_dir);
    if (!resumed.changes.empty()) noteResumeChanges(s, resumed);
    if (start_over) {
      s.log("no checkpoint in " + s.run_dir + " yet (the run stopped before its first epoch was saved): " +
            "starting it over from its args.yaml");
    }
    if ((resume || start_over) && s.isMain()) {
      const int removed = removeAtomicWriteLeftovers(s.run_dir) +
                          removeAtomicWriteLeftovers(run_files::path(s.run_dir, run_files::kWeights));
      if (removed > 0) {
        s.log("removed " + std::to_string(removed) +
              " partial file(s) left by interrupted writes (checkpoints, results.csv) in the run folder");
      }
    }
    setupSession(s, resume ? &*resume : nullptr);
    std::future<std::string> labels_plot;
    if (s.isMain() && s.args.plots && s.train_split) labels_plot = startLabelsPlot(s);
    const std::string csv = run_files::path(s.run_dir, run_files::kResults);
    if ((resume || start_over) && s.isMain()) truncateResults(csv, s.start_epoch);

    TrainSummary sum;
    sum.run_dir = s.run_dir;
    sum.amp = s.amp_note;
    const double budget_s = s.args.time * 3600.0;
    for (int epoch = s.start_epoch; epoch < s.epochs; ++epoch) {
      // Ultralytics updates the end-to-end loss's weights after every epoch; deriving them from the epoch
      // gives the same numbers and holds across a resume, a NaN rollback and a re-planned epoch count.
      s.o2m = loss::O2mSchedule(s.epochs, epoch);
      if (s.dist && s.loss->endToEnd()) distCheckLossWeights(s, epoch);
      // Ultralytics rebuilds its loader where Mosaic closes, which moves its shuffle order on (sampler.h).
      const int close_at = s.closeMosaicEpoch();
      s.train_loader->setOrderResetEpoch(close_at);
      if (!s.mosaic_closed && s.mosaicClosedIn(epoch)) {
        s.mosaic_closed = true;
        s.train_loader->setMultiImageAugment(false);
        s.phase(TrainPhase::CloseMosaic, "Mosaic, MixUp and CutMix off for the last " +
                                             std::to_string(s.args.close_mosaic) + " epochs");
        s.log("closing Mosaic, MixUp and CutMix for the final epochs");
      }
      double tloss[3] = {0, 0, 0}, lr[3] = {0, 0, 0};
      const bool complete = trainEpoch(s, epoch, tloss, lr);
      if (labels_plot.valid() && labels_plot.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        s.log(labels_plot.get());
      // Taken now: from here on the loader may already build the next epoch's samples (prefetchNextEpoch).
      std::vector<std::string> failed_images = s.train_loader->takeErrors();
      std::string nonfinite_line;
      const int64_t nonfinite_steps = s.nonfinite.takeEpochSkipped(epoch, &nonfinite_line);
      if (!nonfinite_line.empty()) s.log(nonfinite_line);
      if (s.nonfinite.burst()) {  // NaN/Inf steps in a row: back to the last checkpoint once, else stop
        epoch = rollBackAfterNonFiniteBurst(s, epoch) - 1;
        continue;
      }
      ++s.epochs_run;
      if (!complete) {
        // Stopped mid-epoch: keep the weights of this partial epoch; a resume repeats the epoch.
        if (s.isMain()) saveCheckpoints(s, epoch, false, "{}");
        sum.stopped = true;
        sum.stop_reason = "stopped by the user during epoch " + std::to_string(epoch + 1);
        break;
      }
      // LambdaLR step: the next epoch's learning rate.
      for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j) {
        setScheduledLr(*s.optimizer, j,
                       s.initial_lr * lrFactor(epoch + 1, s.epochs, s.args.lrf, s.args.cos_lr));
      }
      EpochMetrics em;
      em.epoch = epoch;
      em.epochs = s.epochs;
      // The next epoch's first batches load during validation (from its last batch on, validateEpoch) or,
      // where this rank does not validate, from now on.
      if (s.validatesAfter(epoch))
        em = validateEpoch(s, epoch);
      else
        prefetchNextEpoch(s, epoch);
      if (s.isMain()) reportFailedImages(s, epoch, std::move(failed_images), em, sum);
      em.nonfinite_steps = nonfinite_steps;
      em.o2m = s.o2m.o2m();
      em.end2end = s.loss->endToEnd();
      em.reg_max = int(s.model->regMax());
      em.train_box = tloss[0];
      em.train_cls = tloss[1];
      em.train_dfl = tloss[2];
      for (int k = 0; k < 3; ++k) em.lr[k] = lr[k];
      em.time_s = s.elapsed();
      em.best = em.validated && isNewBest(em.fitness, s.best_epoch >= 0, s.best_fitness);
      if (em.best) {
        s.best_fitness = em.fitness;
        s.best_epoch = epoch;
        sum.best_metrics = em;
        if (s.last_val) s.best_val = std::move(s.last_val);
      }
      s.last_val.reset();
      if (s.isMain()) appendResultsRow(csv, resultsRowOf(em));
      // Time budget: re-plan the number of epochs from the measured epoch time (Ultralytics' rule).
      if (budget_s > 0) {
        const double per_epoch = s.elapsed() / double(epoch + 1);
        s.epochs = std::max(epoch + 1, std::min(s.args.epochs * 1000, int(std::ceil(budget_s / per_epoch))));
      }
      if (s.isMain()) saveCheckpoints(s, epoch + 1, em.best, metricsJson(em));
      if (s.observer) s.observer->onEpoch(em);
      sum.epochs_completed = epoch + 1;
      // In a distributed run rank 0 decides for all.
      EpochDecision decision =
          decideAfterEpoch(s.stop->load(), epoch, s.best_epoch, s.args.patience, s.elapsed(), budget_s);
      if (s.dist) decision = EpochDecision(distEpochDecision(s, epoch, int(decision)));
      if (decision == EpochDecision::StopRequested) {
        sum.stopped = true;
        sum.stop_reason = "stopped by the user after epoch " + std::to_string(epoch + 1);
        break;
      }
      if (decision == EpochDecision::Patience) {
        sum.early_stopped = true;
        sum.stop_reason = "no improvement for " + std::to_string(s.args.patience) +
                          " epochs (patience); best epoch " + std::to_string(s.best_epoch + 1);
        s.log("early stopping: " + sum.stop_reason);
        break;
      }
      if (decision == EpochDecision::TimeBudget) {
        sum.stop_reason = "time budget of " + std::to_string(s.args.time) + " h reached";
        s.log(sum.stop_reason);
        break;
      }
    }
    finishCheckpoints(s);  // the last one written in the background (on a GPU) is on disk from here on
    if (labels_plot.valid()) s.log(labels_plot.get());
    if (s.isMain() && s.args.plots) writeRunPlots(s);
    if (s.dist) distFinish(s);
    if (sum.epochs_completed == 0) sum.epochs_completed = s.start_epoch;
    sum.last = CheckpointFiles::lastPath(s.run_dir);
    const std::string best = CheckpointFiles::bestPath(s.run_dir);
    sum.best = fs::exists(best) ? best : "";
    sum.best_epoch = s.best_epoch;
    sum.best_fitness = s.best_fitness;
    sum.seconds = s.elapsed();
    sum.images_per_s = s.train_seconds > 0 ? double(s.images_trained) / s.train_seconds : 0;
    sum.time_split = s.timing.split();
    sum.nonfinite_steps = s.nonfinite.totalSkipped();
    sum.nonfinite_rollbacks = s.nonfinite.rollbacks();
    sum.first_step_s = s.first_step_s;
    sum.first_step_run_s = s.first_step_run_s;
    s.phase(sum.stopped ? TrainPhase::Stopped : TrainPhase::Finished, sum.stop_reason);
    if (s.observer) s.observer->onFinished(sum);
    return sum;
  } catch (...) {
    const std::string why = describeCurrentException();
    if (s.dist) s.dist->reportFailure(why);
    // Out of memory before the first epoch of a fresh run completed: the caller halves the batch.
    if (!s.dist && isOutOfMemory(why) && s.args.resume.empty() && s.epochs_run == 0 && !s.run_dir.empty()) {
      throw FirstEpochOom{why, s.run_dir, s.args.batch};
    }
    s.phase(TrainPhase::Failed, why);
    throw Error(why);
  }
}

}  // namespace ywb
