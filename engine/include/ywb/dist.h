// Distributed data-parallel runs: torchrun's environment variables and the local launcher that starts one
// worker process per rank on this machine (what `ywb train device=0,1` and `device=cpu world=2` do).
// Thread rules: free functions; launchLocalWorkers() blocks the calling thread until every rank has exited.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT).
struct DistEnv {
  bool present = false;  ///< RANK and WORLD_SIZE are set: this process is one rank of a launched job
  int rank = 0, world = 1, local_rank = 0, local_world = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
};

/// Reads torchrun's variables from the environment. Throws ywb::Error naming a malformed or inconsistent
/// variable (e.g. RANK=3 with WORLD_SIZE=2).
DistEnv distEnvFromEnvironment();

/// Ranks that `device` and `world` ask for on this machine: one per listed CUDA device ("0,1,2" -> 3),
/// otherwise `world` (device=cpu world=2 -> 2 Gloo ranks).
int localRanksRequested(const std::string& device, int world);

/// The CUDA device index rank `local_rank` uses for `device` ("2,3" and local rank 1 -> 3), or -1 for CPU.
int deviceIndexForLocalRank(const std::string& device, int local_rank);

/// A TCP port that was free on the loopback interface a moment ago (for MASTER_PORT).
int pickFreePort();

struct LaunchOptions {
  std::vector<std::string>
      argv;  ///< the full command line to re-execute (argv[0] is replaced by this binary)
  int world = 2;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  ///< 0: pick a free port
  double grace_s = 60;  ///< after a rank fails, how long the others get to stop on their own before SIGKILL
};

/// Starts `world` copies of this program with torchrun's variables set (rank i gets RANK=LOCAL_RANK=i),
/// relays rank 0's output unchanged and the other ranks' stderr prefixed with "[rank N] ", forwards SIGTERM,
/// and waits. Returns 0 when every rank exited 0; otherwise the first failing rank's status (128+signal for
/// a signal) after printing which rank failed and how. Throws ywb::Error when the processes cannot start.
/// A rank gets SIGTERM when the launcher dies (killed, crashed) and stops as on Ctrl-C.
int launchLocalWorkers(const LaunchOptions& options);

/// True in a rank started by launchLocalWorkers whose launcher - its parent `launcher_pid` when it started -
/// is gone (the rank has another parent now).
bool launchedRankLostItsLauncher(int launcher_pid);

}  // namespace ywb
