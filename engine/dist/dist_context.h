// One rank's membership in a distributed run: TCPStore rendezvous (rank 0 hosts it), the c10d process
// group (Gloo on CPU, NCCL on CUDA), a heartbeat watchdog, and the collectives the trainer needs, each
// named by a phase so a failure says which rank was lost and what this rank was doing.
// Thread rules: collectives from the trainer thread only (all ranks call them in the same order);
// setPhase()/tick()/allreduceAsync() waiters are thread-safe.
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ywb/dist.h"

namespace ywb {

struct DistOptions {
  DistEnv env;
  std::string backend;  ///< "gloo" or "nccl"; "" = nccl for a CUDA device, gloo otherwise
  at::Device device{at::kCPU};
  double timeout_s = 600;    ///< rendezvous and collective timeout (dist_timeout)
  double heartbeat_s = 0.5;  ///< watchdog period
};

class DistContext {
 public:
  /// Joins the job described by `options.env`: blocks until all WORLD_SIZE ranks have arrived (or the
  /// timeout passes, then throws ywb::Error naming the address and what to check).
  explicit DistContext(const DistOptions& options);
  ~DistContext();  ///< leaves the group; after a failure, rank 0 keeps the store up briefly so peers read why
  DistContext(const DistContext&) = delete;
  DistContext& operator=(const DistContext&) = delete;

  int rank() const;
  int world() const;
  bool isMain() const { return rank() == 0; }
  int localRank() const;
  int localWorld() const;
  /// This rank's device (DistOptions::device).
  at::Device device() const;
  const std::string& backend() const;
  /// "rank 1 of 2 (gloo via 127.0.0.1:29500)".
  std::string describe() const;

  /// What this rank does now, e.g. "training epoch 2 batch 7" (shown in other ranks' failure messages).
  void setPhase(const std::string& phase);
  /// Marks progress without changing the phase.
  void tick();

  /// Starts a SUM all-reduce of `flat` in place; the returned function waits for it (and throws
  /// ywb::Error describing the lost rank on failure). Used by GradReducer to overlap with backward.
  using Waiter = std::function<void()>;
  Waiter allreduceAsync(at::Tensor flat, const std::string& phase);
  /// In-place all-reduce (sum, or max when `max`), waiting for it.
  void allreduce(at::Tensor& t, bool max, const std::string& phase);
  /// Broadcasts the tensors from rank 0 in place, coalesced into one flat tensor per dtype.
  void broadcast(const std::vector<at::Tensor>& tensors, const std::string& phase);
  void barrier(const std::string& phase);
  /// True on every rank when `local` is true on any rank (stop requests).
  bool anyTrue(bool local, const std::string& phase);
  /// Ranks > 0 wait (no collective timeout while rank 0 makes progress) until rank 0 calls
  /// mainDone(key); rank 0 returns at once. For "rank 0 validates and saves, the others wait".
  void waitForMain(const std::string& key, const std::string& phase);
  void mainDone(const std::string& key);
  /// Largest |x - x_rank0| over the tensors, the same on every rank.
  double maxDifferenceFromMain(const std::vector<at::Tensor>& tensors, const std::string& phase);

  /// Tells the other ranks this rank is failing (called from the trainer's error path).
  void reportFailure(const std::string& message);
  /// Orderly end: a final barrier, then heartbeats stop.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb
