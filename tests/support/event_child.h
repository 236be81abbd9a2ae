// A `ywb train --json` child process whose event lines are read as they arrive, each stamped with the
// time since the process started: for tests that act at a moment of the run's own choosing (kill it while
// it validates, pause it after a step).
#pragma once
#include <QElapsedTimer>
#include <QProcess>
#include <QStringList>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "ywb/run_record.h"

namespace ywb::test {

/// One event line of the child, decoded (ywb/run_record.h), with its arrival time.
struct StampedEvent {
  double t = 0;  ///< seconds since the child was started
  TrainEvent ev;
  std::string line;
};

/// True for a phase event of phase `p`.
inline bool isPhase(const StampedEvent& e, TrainPhase p) {
  return e.ev.kind == TrainEvent::Kind::Phase && e.ev.phase == p;
}

class EventChild {
 public:
  /// Starts `program` with `args`, stdout and stderr kept apart (stdout carries the events).
  EventChild(const QString& program, const QStringList& args) {
    proc_.setProcessChannelMode(QProcess::SeparateChannels);
    proc_.start(program, args);
    clock_.start();
    proc_.waitForStarted();
  }
  ~EventChild() {
    if (proc_.state() != QProcess::NotRunning) {
      proc_.kill();
      proc_.waitForFinished(10000);
    }
  }
  EventChild(const EventChild&) = delete;
  EventChild& operator=(const EventChild&) = delete;

  double now() const { return double(clock_.nsecsElapsed()) * 1e-9; }
  pid_t pid() const { return pid_t(proc_.processId()); }
  bool running() const { return proc_.state() != QProcess::NotRunning; }
  const std::vector<StampedEvent>& events() const { return events_; }
  QString errText() const { return err_; }

  /// Reads what has arrived, waiting at most `ms` for more. False once the child has ended and all is read.
  bool poll(int ms) {
    if (proc_.state() != QProcess::NotRunning) proc_.waitForReadyRead(ms);
    drain();
    return proc_.state() != QProcess::NotRunning;
  }
  /// Polls until `pred` holds for a new event (returns its index) or the child ends / `limit_s` passes
  /// (returns -1).
  int waitFor(const std::function<bool(const StampedEvent&)>& pred, double limit_s) {
    size_t seen = 0;
    for (;;) {
      for (; seen < events_.size(); ++seen)
        if (pred(events_[seen])) return int(seen);
      if (!poll(5) && seen == events_.size()) return -1;
      if (now() > limit_s) return -1;
    }
  }
  /// Polls until `t` seconds since the start; false when the child ended first.
  bool waitUntil(double t) {
    while (now() < t) {
      if (!poll(std::max(1, std::min(5, int((t - now()) * 1000))))) return false;
    }
    return running();
  }
  /// Sends `sig` to the child (SIGKILL: no handler runs).
  void signal(int sig) { ::kill(pid(), sig); }
  /// Waits for the end, reads the rest; returns the exit code (-1: killed by a signal or still running).
  int finish(int ms) {
    const double deadline = now() + ms / 1000.0;
    while (poll(20) && now() < deadline) {
    }  // reading as it comes: each event keeps its arrival time
    proc_.waitForFinished(0);
    drain();
    if (proc_.state() != QProcess::NotRunning) return -1;
    return proc_.exitStatus() == QProcess::NormalExit ? proc_.exitCode() : -1;
  }

 private:
  void drain() {
    pending_ += proc_.readAllStandardOutput();
    err_ += QString::fromUtf8(proc_.readAllStandardError());
    int nl;
    while ((nl = pending_.indexOf('\n')) >= 0) {
      StampedEvent e;
      e.t = now();
      e.line = pending_.left(nl).toStdString();
      e.ev = parseTrainEvent(e.line);
      pending_.remove(0, nl + 1);
      events_.push_back(std::move(e));
    }
  }

  QProcess proc_;
  QElapsedTimer clock_;
  QByteArray pending_;
  QString err_;
  std::vector<StampedEvent> events_;
};

}  // namespace ywb::test
