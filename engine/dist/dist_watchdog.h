// Heartbeats between the ranks of a distributed run, through the rendezvous store: every rank publishes
// its phase, a progress counter and its pid; the watchdog notices a rank that exits, crashes, stops
// responding or reports a failure, so messages can name the lost rank and what it was doing.
// Thread rules: one internal thread; every public method is thread-safe.
#pragma once
#include <c10/util/intrusive_ptr.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace c10d {
class Store;
}

namespace ywb {

class DistWatchdog {
 public:
  /// `store` must be a connection of its own (the watchdog thread uses it concurrently with collectives).
  DistWatchdog(c10::intrusive_ptr<c10d::Store> store, int rank, int world, double period_s,
               double lost_after_s);
  ~DistWatchdog();  ///< stops the thread
  DistWatchdog(const DistWatchdog&) = delete;
  DistWatchdog& operator=(const DistWatchdog&) = delete;

  /// What this rank is doing now (named in other ranks' messages).
  void setPhase(const std::string& phase);
  std::string phase() const;
  /// Marks progress (a step, a validation batch).
  void tick();
  /// Tells the other ranks that this rank is failing and why (best effort).
  void publishFailure(const std::string& message);
  /// Stops heartbeats (orderly shutdown; other ranks must not read silence as a loss after this).
  void stop();

  /// The first problem seen with another rank ("" while all is well), e.g. "rank 1 (pid 42) exited ...".
  std::string problem() const;
  /// Waits up to `seconds` for a problem to be noticed; returns it or "".
  std::string waitForProblem(double seconds);
  /// Seconds since rank `r` last made progress (tick) as seen through its heartbeats.
  double progressAge(int r) const;
  /// The phase rank `r` last reported.
  std::string phaseOf(int r) const;

 private:
  struct Peer {
    int64_t seq = -1, progress = -1;
    int pid = 0;
    std::string host, phase;
    std::chrono::steady_clock::time_point seen, progressed;
  };
  void run();
  void beat();
  void check();
  void setProblem(const std::string& p);

  c10::intrusive_ptr<c10d::Store> store_;
  const int rank_, world_;
  const double period_s_, lost_after_s_;
  std::string host_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string phase_ = "starting";
  std::atomic<int64_t> progress_{0};
  int64_t seq_ = 0;
  std::vector<Peer> peers_;
  std::string problem_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ywb
