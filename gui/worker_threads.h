// The worker threads of one GUI object (a tab, the main window, a dialog): each engine call that would block
// the GUI thread (a dataset scan, a validation, a preview render, a dataset generation) runs on a thread of
// its own, and the owner's destructor cancels and joins whatever still runs. Without the join a worker
// outlives its owner: it posts its result to a destroyed object, and at exit it runs on while LibTorch's and
// Qt's statics are torn down (heap corruption, or a hang in the crash handler).
// Thread rules: GUI thread only, except the cancel flag, which the jobs read.
#pragma once
#include <QList>
#include <QPointer>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>

namespace ywb::gui {

class WorkerThreads {
 public:
  WorkerThreads() = default;
  /// Cancels and joins (cancelAndWait).
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  /// Runs `job` on a new thread named `name`; the thread object deletes itself when the job has returned.
  /// The job reports back with a queued call (never a blocking one: the owner may be waiting for it).
  void start(const QString& name, std::function<void()> job);
  /// Raised by cancelAndWait; a job that can stop early holds it and polls it (e.g. in an engine callback).
  std::shared_ptr<const std::atomic<bool>> cancelFlag() const { return cancel_; }
  /// Raises the cancel flag and blocks until every job has returned. Owners call it first thing in their
  /// destructor, while what their jobs' results go to is still alive.
  void cancelAndWait();
  /// Jobs of every owner in the program that have started and not yet returned (for tests and exit checks).
  static int running();

 private:
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
  QList<QPointer<QThread>> threads_;
};

}  // namespace ywb::gui
