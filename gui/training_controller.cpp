#include "training_controller.h"

#include <QPointer>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <exception>
#include <functional>

#include "cli_training_run.h"
#include "ywb/dist.h"
#include "ywb/error.h"
#include "ywb/heap.h"
#include "ywb/run_record.h"
#include "ywb/trainer.h"
#include "ywb/tune.h"

namespace ywb::gui {

// Lives as long as the run; its callbacks run on the trainer thread and only copy values.
class TrainingController::Observer : public ywb::TuneObserver {
 public:
  explicit Observer(TrainingController* owner) : owner_(owner) {}
  void onPhase(ywb::TrainPhase phase, const std::string& detail) override {
    post([phase, d = QString::fromStdString(detail), at = last_step_x_](TrainingController* c) {
      Q_EMIT c->phaseChanged(phase, d, at);
    });
  }
  void onStep(const ywb::StepMetrics& m) override {
    last_step_x_ = ywb::stepEpochPosition(m);
    owner_->pushStep(m);
  }
  void onEpoch(const ywb::EpochMetrics& m) override {
    post([m](TrainingController* c) { Q_EMIT c->epochFinished(m); });
  }
  void onLog(const std::string& line) override {
    post([l = QString::fromStdString(line)](TrainingController* c) { Q_EMIT c->logLine(l); });
  }
  void onFinished(const ywb::TrainSummary& s) override {
    post([s](TrainingController* c) { Q_EMIT c->finished(s); });
  }
  void onIterationStart(int it, int n, const std::vector<double>&, const std::string& dir) override {
    last_step_x_ = -1;  // a new run: its steps start at epoch 0
    post([it, n, d = QString::fromStdString(dir)](TrainingController* c) {
      Q_EMIT c->tuneIterationStarted(it, n, d);
    });
  }
  void onIteration(const ywb::TuneIteration& r) override {
    const QString line =
        r.error.empty() ? TrainingController::tr("tune: iteration %1/%2: fitness %3; best %4 (iteration %5)")
                              .arg(r.iteration)
                              .arg(r.iterations)
                              .arg(r.row.fitness, 0, 'f', 5)
                              .arg(r.best_fitness, 0, 'f', 5)
                              .arg(r.best_iteration)
                        : TrainingController::tr("tune: iteration %1/%2 failed (fitness 0): %3")
                              .arg(r.iteration)
                              .arg(r.iterations)
                              .arg(QString::fromStdString(r.error));
    post([line](TrainingController* c) { Q_EMIT c->logLine(line); });
  }
  template <class F>
  void post(F f) {
    QPointer<TrainingController> self(owner_);
    QMetaObject::invokeMethod(
        owner_,
        [self, f] {
          if (self) f(self.data());
        },
        Qt::QueuedConnection);
  }

 private:
  TrainingController* owner_;
  // Where the last reported step ends on the charts' epoch axis (trainer thread only). A phase carries it so
  // markers land where the phase changed, not where the GUI's drain happened to be when the signal arrived.
  double last_step_x_ = -1;  // -1: no step yet in this run (a resume that changes phase first)
};

// jemalloc's settings for the GUI process (gui/CMakeLists.txt links jemalloc; it reads this string at its
// first allocation, before main(); MALLOC_CONF in the environment still overrides; ywb/heap.h says why).
// - narenas:1, oversize_threshold:0: one arena for every thread and block size. Every run starts new threads,
//   and with more arenas their freed memory stayed behind in arenas of their own (test_gui_memory: RSS +6%
//   over five runs with jemalloc's default of 4 per core; one arena: flat). Unlike glibc's one arena this
//   puts no shared lock on the GUI thread's small allocations: each thread has its own cache, and the arena
//   locks per size class.
// - dirty_decay_ms:-1, muzzy_decay_ms:-1: freed pages stay for reuse until the end of a run hands them back
//   (ywb::releaseFreeHeapMemory), as the engine keeps glibc's (core/host_allocator.h). With jemalloc's
//   default 10 s decay a CPU training step took 3.7x as long (`ywb bench train` yolov8n 320/16: 2,200 ms vs
//   600), the tensors' pages purged and faulted back in step after step.
extern "C" {
const char* malloc_conf = "narenas:1,oversize_threshold:0,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}

namespace {
constexpr int kHeapSettleMs = 1000;  ///< after a run's end, when its end-of-run GUI work is done

}  // namespace

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ywb::TrainPhase>("ywb::TrainPhase");
  qRegisterMetaType<ywb::EpochMetrics>("ywb::EpochMetrics");
  qRegisterMetaType<ywb::TrainSummary>("ywb::TrainSummary");
}

TrainingController::~TrainingController() {
  shutdown();
}

void TrainingController::reapPrevious() {
  if (thread_) {  // the previous run's thread has ended; reap it
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    steps_.clear();
  }
  delete cli_run_;
  cli_run_ = nullptr;
  trainer_.reset();
  tune_control_.reset();
  observer_.reset();
}

bool TrainingController::start(const ywb::TrainArgs& args) {
  if (running_) return false;
  reapPrevious();
  args_ = args;
  try {
    // The run's own arguments decide the process layout: a resumed multi-rank run relaunches its ranks.
    const ywb::TrainArgs resolved = ywb::resolveTrainArgs(args);
    args_ = resolved;  // what the run uses (a resumed run's own device and ranks)
    if (const int ranks = ywb::localRanksRequested(resolved.device, resolved.world); ranks > 1)
      return startProcess(args, ranks);
    trainer_ = std::make_unique<ywb::Trainer>(args);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromUtf8(e.what()));
    return false;
  }
  observer_ = std::make_unique<Observer>(this);
  trainer_->setObserver(observer_.get());
  ywb::Trainer* trainer = trainer_.get();
  launch([trainer] { trainer->run(); });
  return true;
}

bool TrainingController::startTune(const ywb::TuneOptions& options) {
  if (running_) return false;
  reapPrevious();
  args_ = options.train;
  if (ywb::localRanksRequested(options.train.device, options.train.world) > 1) {
    Q_EMIT failed(tr("a tune trains one process per run: choose one device (0 or cpu) and world=1"));
    return false;
  }
  observer_ = std::make_unique<Observer>(this);
  tune_control_ = std::make_unique<ywb::TuneControl>();
  ywb::TuneControl* control = tune_control_.get();
  Observer* observer = observer_.get();
  launch([options, observer, control] { ywb::runTune(options, observer, control); });
  return true;
}

void TrainingController::launch(std::function<void()> work) {
  running_ = true;
  paused_ = false;
  Observer* observer = observer_.get();
  thread_ = QThread::create([work, observer] {
    try {
      work();
    } catch (const std::exception& e) {
      observer->post(
          [msg = QString::fromStdString(e.what())](TrainingController* c) { Q_EMIT c->failed(msg); });
    } catch (...) {
      observer->post([](TrainingController* c) { Q_EMIT c->failed(tr("unknown error in the trainer")); });
    }
  });
  thread_->setObjectName("ywb-trainer");
  connect(thread_, &QThread::finished, this, [this] {
    running_ = false;
    ywb::releaseFreeHeapMemory();  // the trainer gave its pages back; this gives back the run's last events'
    Q_EMIT stoppedRunning();
    // The views' end-of-run work (final redraws, tables) allocates and frees after this, and the allocator
    // keeps such pages (malloc_conf above: no time-based purge; with glibc's trim threshold of 1 GiB it left
    // 10-30 MB resident per run, test_gui_memory). Hand them back once that has settled, unless a new run
    // has started.
    QTimer::singleShot(kHeapSettleMs, this, [this] {
      if (running_) return;
      ywb::releaseFreeHeapMemory();
      Q_EMIT heapReleased();
    });
  });
  thread_->start();
  Q_EMIT started();
}

bool TrainingController::startProcess(const ywb::TrainArgs& args, int ranks) {
  const QString program = cli_path_.isEmpty() ? CliTrainingRun::findCli() : cli_path_;
  if (program.isEmpty()) {
    Q_EMIT failed(
        tr("a multi-rank run needs the ywb program (one process per rank), and it was not found "
           "next to this program or on PATH; set YWB_CLI to its path"));
    return false;
  }
  cli_run_ = new CliTrainingRun(this);
  cli_last_x_ = -1;
  CliTrainingRun* run = cli_run_;
  connect(run, &CliTrainingRun::phase, this,
          [this](ywb::TrainPhase p, const QString& d) { Q_EMIT phaseChanged(p, d, cli_last_x_); });
  connect(run, &CliTrainingRun::step, this, [this](const ywb::StepMetrics& m) {
    cli_last_x_ = ywb::stepEpochPosition(m);
    pushStep(m);
  });
  connect(run, &CliTrainingRun::epoch, this, &TrainingController::epochFinished);
  connect(run, &CliTrainingRun::logLine, this, &TrainingController::logLine);
  connect(run, &CliTrainingRun::finished, this, &TrainingController::finished);
  connect(run, &CliTrainingRun::failed, this, &TrainingController::failed);
  connect(run, &CliTrainingRun::ended, this, [this, run] {
    if (run != cli_run_) return;
    running_ = false;
    Q_EMIT stoppedRunning();
  });
  running_ = true;
  paused_ = false;
  Q_EMIT logLine(tr("Multi-rank run: %1 processes through the ywb launcher").arg(ranks));
  run->start(program, args);
  Q_EMIT started();
  return true;
}

void TrainingController::setPaused(bool paused) {
  paused_ = paused;
  if (cli_run_ && running_) cli_run_->setPaused(paused);
  if (trainer_ && running_) trainer_->setPaused(paused);
  if (tune_control_ && running_) tune_control_->setPaused(paused);
}

void TrainingController::requestStop() {
  if (cli_run_ && running_) cli_run_->requestStop();
  if (trainer_ && running_) {
    trainer_->setPaused(false);
    trainer_->requestStop();
  }
  if (tune_control_ && running_) {
    tune_control_->setPaused(false);
    tune_control_->requestStop();
  }
}

bool TrainingController::requestEmaSnapshot() {
  if (!trainer_ || !running_ || cli_run_) return false;
  trainer_->requestEmaSnapshot();
  return true;
}

std::shared_ptr<ywb::ModelHandle> TrainingController::emaSnapshot() const {
  return trainer_ && !cli_run_ ? trainer_->emaSnapshot() : nullptr;
}

std::vector<ywb::StepMetrics> TrainingController::takeSteps() {
  std::vector<ywb::StepMetrics> out;
  std::lock_guard<std::mutex> lock(mutex_);
  out.swap(steps_);
  return out;
}

void TrainingController::pushStep(const ywb::StepMetrics& m) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (steps_.size() < 100000) steps_.push_back(m);  // bounded if the GUI stops draining
}

void TrainingController::shutdown() {
  delete cli_run_;  // stops and reaps the child processes
  cli_run_ = nullptr;
  if (!thread_) return;
  requestStop();
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  running_ = false;
}

}  // namespace ywb::gui
