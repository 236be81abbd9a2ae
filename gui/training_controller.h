// Runs one ywb::Trainer on a worker QThread and hands its events to the GUI thread: step metrics through a
// mutex-guarded queue the GUI drains on a timer, everything else as signals emitted on the GUI thread.
// Multi-rank runs (device=0,1 or device=cpu world=2) need one process per rank: those run as `ywb train
// --json` child processes (CliTrainingRun) whose rank-0 events arrive through the same queue and signals.
// Thread rules: every public method is for the GUI thread; the observer callbacks run on the worker thread
// and only copy values (into the queue or into a queued call).
#pragma once
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "train_metatypes.h"
#include "ywb/train_args.h"
#include "ywb/train_events.h"

class QThread;

namespace ywb {
class ModelHandle;
class Trainer;
class TuneControl;
struct TuneOptions;
}  // namespace ywb

namespace ywb::gui {

class CliTrainingRun;

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;

  /// Starts a run with `args` (args.resume set = continue that run). False when one is already running.
  bool start(const ywb::TrainArgs& args);
  /// Starts (or continues, options.resume) a hyperparameter tune (ywb::runTune): its runs one after another
  /// on the worker thread, their events as a run's, each announced by tuneIterationStarted. Pause and stop
  /// act on the run in progress (stop ends the tune; resume continues it). False when anything is running.
  bool startTune(const ywb::TuneOptions& options);
  /// True while the current (or last) run is a tune.
  bool tuning() const { return tune_control_ != nullptr; }
  void setPaused(bool paused);
  /// Asks the trainer to finish the current step, save `last` and return.
  void requestStop();
  bool running() const { return running_; }
  /// True while the current (or last) run is a multi-rank run in `ywb train` child processes.
  bool distributed() const { return cli_run_ != nullptr; }
  /// The arguments of the current (or last) run.
  const ywb::TrainArgs& args() const { return args_; }
  /// The ywb executable for multi-rank runs (default: CliTrainingRun::findCli()).
  void setCliPath(const QString& path) { cli_path_ = path; }
  bool paused() const { return paused_; }
  /// Asks the in-process trainer for a copy of its EMA weights after the current step (see
  /// ywb::Trainer::requestEmaSnapshot); false when none runs here (idle, or a multi-rank run).
  bool requestEmaSnapshot();
  /// The latest EMA copy of the current run (nullptr when none yet).
  std::shared_ptr<ywb::ModelHandle> emaSnapshot() const;
  /// Removes and returns the step metrics queued since the last call.
  std::vector<ywb::StepMetrics> takeSteps();
  /// Blocks until the worker thread ends (used on shutdown); stops the run first.
  void shutdown();

 Q_SIGNALS:
  void started();
  /// `at_epoch`: the end of the last step reported before the change, in fractional epochs (the x of the
  /// training charts: epoch + (batch + 1) / batches; -1 before the first step of this run).
  void phaseChanged(ywb::TrainPhase phase, const QString& detail, double at_epoch);
  void epochFinished(const ywb::EpochMetrics& metrics);
  void logLine(const QString& line);
  void finished(const ywb::TrainSummary& summary);
  /// A tune's iteration `iteration` of `iterations` (1-based) starts its run in `run_dir`.
  void tuneIterationStarted(int iteration, int iterations, const QString& run_dir);
  void failed(const QString& message);
  /// The worker thread has ended (after finished or failed).
  void stoppedRunning();
  /// A second after a run has ended (and no new one started), the free heap pages its end left behind (the
  /// last events, the views' final redraws) have been handed back to the system.
  void heapReleased();

 private:
  class Observer;
  friend class Observer;
  void pushStep(const ywb::StepMetrics& m);
  bool startProcess(const ywb::TrainArgs& args, int ranks);
  void reapPrevious();
  /// Runs `work` on the worker thread; its ywb::Error becomes failed().
  void launch(std::function<void()> work);

  std::unique_ptr<ywb::Trainer> trainer_;
  std::unique_ptr<ywb::TuneControl> tune_control_;  // the tune in progress (or the last one)
  std::unique_ptr<Observer> observer_;
  QThread* thread_ = nullptr;
  std::mutex mutex_;  // guards steps_
  std::vector<ywb::StepMetrics> steps_;
  bool running_ = false;
  bool paused_ = false;
  ywb::TrainArgs args_;
  CliTrainingRun* cli_run_ = nullptr;  // the multi-rank run's child process, when there is one
  QString cli_path_;
  double cli_last_x_ = -1;  // end of the child's last step on the epoch axis (see phaseChanged)
};

}  // namespace ywb::gui
