#include "worker_threads.h"

namespace ywb::gui {
namespace {

std::atomic<int> g_running{0};  // counted from before a job's thread starts until the job has returned

}  // namespace

WorkerThreads::~WorkerThreads() {
  cancelAndWait();
}

void WorkerThreads::start(const QString& name, std::function<void()> job) {
  threads_.removeAll(nullptr);  // those that have finished and deleted themselves
  ++g_running;
  // (Jobs catch their own errors and report them back: an exception leaving a thread ends the program.)
  QThread* t = QThread::create([job = std::move(job)] {
    job();
    --g_running;
  });
  t->setObjectName(name);
  QObject::connect(t, &QThread::finished, t, &QObject::deleteLater);
  threads_ << t;
  t->start();
}

void WorkerThreads::cancelAndWait() {
  cancel_->store(true);
  for (const QPointer<QThread>& t : threads_) {
    if (!t) continue;
    t->wait();
    // Finished: its deleteLater may never run (no event loop once the window has closed); deleting it drops
    // that posted event.
    delete t.data();
  }
  threads_.clear();
}

int WorkerThreads::running() {
  return g_running.load();
}

}  // namespace ywb::gui
