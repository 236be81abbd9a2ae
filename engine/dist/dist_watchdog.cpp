#include "dist/dist_watchdog.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "core/error.h"

namespace ywb {
namespace {

using Clock = std::chrono::steady_clock;

std::string hbKey(int r) {
  return "ywb/hb/" + std::to_string(r);
}
std::string failKey(int r) {
  return "ywb/failed/" + std::to_string(r);
}

std::vector<uint8_t> bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::string hostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "?";
  return buf;
}

// A process that is gone, or a zombie nobody has reaped yet.
bool processGone(int pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

DistWatchdog::DistWatchdog(c10::intrusive_ptr<c10d::Store> store, int rank, int world, double period_s,
                           double lost_after_s)
    : store_(std::move(store)),
      rank_(rank),
      world_(world),
      period_s_(period_s),
      lost_after_s_(lost_after_s),
      host_(hostName()),
      peers_(size_t(world)) {
  const auto now = Clock::now();
  for (auto& p : peers_) p.seen = p.progressed = now;
  beat();
  thread_ = std::thread([this] { run(); });
}

DistWatchdog::~DistWatchdog() {
  stop();
}

void DistWatchdog::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DistWatchdog::setPhase(const std::string& phase) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = phase;
  ++progress_;
}

std::string DistWatchdog::phase() const {
  std::lock_guard<std::mutex> lock(mu_);
  return phase_;
}

void DistWatchdog::tick() {
  ++progress_;
}

void DistWatchdog::publishFailure(const std::string& message) {
  try {
    store_->set(failKey(rank_), bytes(message + " (during " + phase() + ")"));
  } catch (...) {
    // The store may be gone already (rank 0 lost): nothing more to tell.
  }
}

std::string DistWatchdog::problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

std::string DistWatchdog::waitForProblem(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return !problem_.empty() || stopping_; });
  return problem_;
}

double DistWatchdog::progressAge(int r) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (r == rank_) return 0;
  return secondsSince(peers_[size_t(r)].progressed);
}

std::string DistWatchdog::phaseOf(int r) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (r == rank_) return phase_;
  return peers_[size_t(r)].phase.empty() ? "unknown" : peers_[size_t(r)].phase;
}

void DistWatchdog::setProblem(const std::string& p) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!problem_.empty()) return;
    problem_ = p;
  }
  cv_.notify_all();
}

void DistWatchdog::beat() {
  std::ostringstream os;
  {
    std::lock_guard<std::mutex> lock(mu_);
    os << ++seq_ << '\t' << progress_.load() << '\t' << ::getpid() << '\t' << host_ << '\t' << phase_;
  }
  store_->set(hbKey(rank_), bytes(os.str()));
}

void DistWatchdog::check() {
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    if (store_->check({failKey(r)})) {
      const auto v = store_->get(failKey(r));
      setProblem("rank " + std::to_string(r) + " failed: " + std::string(v.begin(), v.end()));
      continue;
    }
    if (!store_->check({hbKey(r)})) continue;
    const auto v = store_->get(hbKey(r));
    std::istringstream is(std::string(v.begin(), v.end()));
    Peer got;
    std::string seq, progress, pid;
    std::getline(is, seq, '\t');
    std::getline(is, progress, '\t');
    std::getline(is, pid, '\t');
    std::getline(is, got.host, '\t');
    std::getline(is, got.phase);
    std::unique_lock<std::mutex> lock(mu_);
    Peer& p = peers_[size_t(r)];
    const auto now = Clock::now();
    const int64_t s = std::atoll(seq.c_str()), pr = std::atoll(progress.c_str());
    if (s != p.seq) p.seen = now;
    if (pr != p.progress) p.progressed = now;
    p.seq = s;
    p.progress = pr;
    p.pid = std::atoi(pid.c_str());
    p.host = got.host;
    p.phase = got.phase;
    const Peer snapshot = p;
    lock.unlock();
    if (snapshot.host == host_ && processGone(snapshot.pid)) {
      setProblem("lost rank " + std::to_string(r) + ": its process (pid " + std::to_string(snapshot.pid) +
                 ") has exited; its last phase was: " + snapshot.phase);
    } else if (secondsSince(snapshot.seen) > lost_after_s_) {
      std::ostringstream os;
      os.precision(3);
      os << "lost rank " << r << ": no heartbeat for " << secondsSince(snapshot.seen)
         << " s (crashed, hung or unreachable); its last phase was: " << snapshot.phase;
      setProblem(os.str());
    }
  }
}

void DistWatchdog::run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(period_s_), [&] { return stopping_; })) return;
    }
    try {
      beat();
      check();
    } catch (...) {
      if (rank_ != 0) {
        setProblem("lost rank 0: the rendezvous store it hosts is unreachable (" +
                   describeCurrentException() +
                   "); rank 0 has probably exited; its last phase was: " + phaseOf(0));
      } else {
        setProblem("the rendezvous store failed: " + describeCurrentException());
      }
    }
  }
}

}  // namespace ywb
