// Measures how long the GUI thread stalls: a 5 ms timer on it, and for each gap between two ticks the part
// that was neither the event loop waiting for work nor the thread waiting for a CPU.
//
// A gap between ticks has three parts. (1) The event loop's wait for the next event (GLib's poll, which Qt's
// event dispatcher on Linux runs): idle, not a stall, however late the wake-up comes (a 2-core CI VM once
// woke an idle loop's 5 ms timer after 15 ms, the host not running its vCPU). (2) Waiting on a CPU run queue
// while runnable (the trainer keeps both cores of a 2-core machine busy): the kernel's accounting in
// /proc/thread-self/schedstat. (3) The rest: the GUI thread computing or blocked outside the event loop's
// wait (a lock, a file, a sleep): the application's stall, what the probe reports. The poll is timed by
// wrapping GLib's poll function for the main context; GLib is linked by Qt, not by the test, so its three
// functions are looked up at run time.
#pragma once

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTimer>

namespace ywb::test {

/// How long this thread has waited on a CPU run queue (ns): /proc/thread-self/schedstat's second field; -1
/// where the kernel does not provide it.
inline qint64 runQueueWaitNs() {
  QFile f("/proc/thread-self/schedstat");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  const QList<QByteArray> fields = f.readAll().simplified().split(' ');
  bool ok = false;
  const qint64 v = fields.size() >= 2 ? fields[1].toLongLong(&ok) : -1;
  return ok ? v : -1;
}

namespace stall_probe_detail {

// GLib's GPollFunc (glib/gmain.h): gint (*)(GPollFD* fds, guint nfds, gint timeout).
using PollFn = int (*)(void*, unsigned, int);

inline qint64 nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct PollClock {
  PollFn real = nullptr;
  qint64 poll_ns = 0;    // wall time inside the main context's poll
  qint64 queued_ns = 0;  // run-queue wait inside it (waking up from the poll)
};
inline PollClock& pollClock() {
  static PollClock c;
  return c;
}

inline int countingPoll(void* fds, unsigned nfds, int timeout) {
  PollClock& c = pollClock();
  const qint64 t0 = nowNs(), q0 = runQueueWaitNs();
  const int r = c.real(fds, nfds, timeout);
  const qint64 q1 = runQueueWaitNs();
  c.poll_ns += nowNs() - t0;
  if (q0 >= 0 && q1 >= 0) c.queued_ns += q1 - q0;
  return r;
}

// Installs (or, with install false, removes) countingPoll on GLib's default main context, which Qt's
// dispatcher runs on the main thread. False where GLib is not in the process.
inline bool hookPoll(bool install) {
  using ContextFn = void* (*)();
  using GetFn = PollFn (*)(void*);
  using SetFn = void (*)(void*, PollFn);
  auto context = reinterpret_cast<ContextFn>(dlsym(RTLD_DEFAULT, "g_main_context_default"));
  auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "g_main_context_get_poll_func"));
  auto set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "g_main_context_set_poll_func"));
  if (!context || !get || !set) return false;
  void* ctx = context();
  PollClock& c = pollClock();
  if (install) {
    if (get(ctx) != &countingPoll) c.real = get(ctx);
    set(ctx, &countingPoll);
  } else if (c.real) {
    set(ctx, c.real);
  }
  return true;
}

}  // namespace stall_probe_detail

/// Create on the GUI thread; one at a time.
class StallProbe : public QObject {
 public:
  StallProbe() {
    hooked_ = stall_probe_detail::hookPoll(true);
    accounting_ = runQueueWaitNs() >= 0;
    timer_.setInterval(5);
    connect(&timer_, &QTimer::timeout, this, [this] { tick(); });
    clock_.start();
    mark(clock_.nsecsElapsed(), runQueueWaitNs());
    timer_.start();
  }
  ~StallProbe() override { stall_probe_detail::hookPoll(false); }

  /// Stops measuring while the test itself works on the GUI thread (its own checks are not the application's
  /// stalls); resume() measures again from that moment, so work started right after it still counts.
  void pause() { timer_.stop(); }
  void resume() {
    mark(clock_.nsecsElapsed(), runQueueWaitNs());
    timer_.start();
  }
  double maxStallMs() const { return max_stall_ms_; }
  double maxGapMs() const { return max_gap_ms_; }
  double maxAtMs() const { return max_at_ms_; }  ///< when the longest stall began, ms after the probe started
  int gapsOver50() const { return gaps_over_50_; }
  int ticks() const { return ticks_; }
  bool pollTimed() const { return hooked_ && stall_probe_detail::pollClock().poll_ns > 0; }
  bool accounting() const { return accounting_; }

 private:
  void mark(qint64 ns, qint64 wait) {
    const auto& c = stall_probe_detail::pollClock();
    last_ = ns;
    last_wait_ = wait;
    last_poll_ = c.poll_ns;
    last_poll_queued_ = c.queued_ns;
  }
  void tick() {
    const auto& c = stall_probe_detail::pollClock();
    const qint64 ns = clock_.nsecsElapsed(), wait = runQueueWaitNs();
    const double gap_ms = double(ns - last_) / 1e6;
    const double poll_ms = double(c.poll_ns - last_poll_) / 1e6;
    const double queued_ms = wait >= 0 && last_wait_ >= 0 ? double(wait - last_wait_) / 1e6 : 0.0;
    const double queued_outside_ms = queued_ms - double(c.queued_ns - last_poll_queued_) / 1e6;
    const double stall_ms = std::max(0.0, gap_ms - poll_ms - std::max(0.0, queued_outside_ms));
    max_gap_ms_ = std::max(max_gap_ms_, gap_ms);
    if (stall_ms > max_stall_ms_) {
      max_stall_ms_ = stall_ms;
      max_at_ms_ = double(last_) / 1e6;
    }
    if (gap_ms > 50) ++gaps_over_50_;
    ++ticks_;
    mark(ns, wait);
  }

  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = 0, last_wait_ = -1, last_poll_ = 0, last_poll_queued_ = 0;
  double max_gap_ms_ = 0, max_stall_ms_ = 0, max_at_ms_ = 0;
  int gaps_over_50_ = 0, ticks_ = 0;
  bool hooked_ = false, accounting_ = false;
};

}  // namespace ywb::test
