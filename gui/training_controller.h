// Runs one ywb::Trainer on a worker QThread and hands its events to the GUI thread: step metrics through a
// mutex-guarded queue the GUI drains on a timer, everything else as signals emitted on the GUI thread.
// Thread rules: every public method is for the GUI thread; the observer callbacks run on the worker thread
// and only copy values (into the queue or into a queued call).
#pragma once
#include <QObject>
#include <QString>
#include <memory>
#include <mutex>
#include <vector>

#include "ywb/train_args.h"
#include "ywb/train_events.h"

class QThread;

namespace ywb {
class Trainer;
}

namespace ywb::gui {

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;

  /// Starts a run with `args` (args.resume set = continue that run). False when one is already running.
  bool start(const ywb::TrainArgs& args);
  void setPaused(bool paused);
  /// Asks the trainer to finish the current step, save `last` and return.
  void requestStop();
  bool running() const { return running_; }
  bool paused() const { return paused_; }
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
  void failed(const QString& message);
  /// The worker thread has ended (after finished or failed).
  void stoppedRunning();

 private:
  class Observer;
  friend class Observer;
  void pushStep(const ywb::StepMetrics& m);

  std::unique_ptr<ywb::Trainer> trainer_;
  std::unique_ptr<Observer> observer_;
  QThread* thread_ = nullptr;
  std::mutex mutex_;  // guards steps_
  std::vector<ywb::StepMetrics> steps_;
  bool running_ = false;
  bool paused_ = false;
};

}  // namespace ywb::gui

Q_DECLARE_METATYPE(ywb::TrainPhase)
Q_DECLARE_METATYPE(ywb::EpochMetrics)
Q_DECLARE_METATYPE(ywb::TrainSummary)
