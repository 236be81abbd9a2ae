// torchrun's environment variables and the device list of a distributed run.
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "ywb/dist.h"

namespace ywb {
namespace {

bool readInt(const char* name, int& out) {
  const char* v = std::getenv(name);
  if (!v || !*v) return false;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > 1 << 20) {
    fail("environment variable ", name, "='", v, "' is not a non-negative integer (as torchrun sets it)");
  }
  out = int(x);
  return true;
}

std::vector<std::string> splitDevices(const std::string& device) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= device.size()) {
    const size_t comma = device.find(',', start);
    const std::string part =
        device.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

DistEnv distEnvFromEnvironment() {
  DistEnv e;
  const bool has_rank = readInt("RANK", e.rank);
  const bool has_world = readInt("WORLD_SIZE", e.world);
  if (has_rank != has_world) {
    fail("RANK and WORLD_SIZE must be set together (torchrun sets both); found only ",
         has_rank ? "RANK" : "WORLD_SIZE");
  }
  e.present = has_rank && has_world;
  if (!e.present) return e;
  if (e.world < 1 || e.rank >= e.world) fail("RANK=", e.rank, " is not below WORLD_SIZE=", e.world);
  if (!readInt("LOCAL_RANK", e.local_rank)) e.local_rank = e.rank;
  if (!readInt("LOCAL_WORLD_SIZE", e.local_world)) e.local_world = e.world;
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) e.master_addr = a;
  readInt("MASTER_PORT", e.master_port);
  if (e.master_port <= 0 || e.master_port > 65535) fail("MASTER_PORT=", e.master_port, " is not a TCP port");
  return e;
}

int localRanksRequested(const std::string& device, int world) {
  if (device.find(',') != std::string::npos) return int(splitDevices(device).size());
  return std::max(1, world);
}

int deviceIndexForLocalRank(const std::string& device, int local_rank) {
  if (device == "cpu") return -1;
  const std::vector<std::string> parts = splitDevices(device);
  if (parts.empty())
    return local_rank;  // device="" under a launcher: one GPU per local rank, as torchrun does
  if (parts.size() == 1) {
    // A single device with several local ranks (e.g. torchrun --nproc-per-node 2 ... device=0): rank i
    // takes GPU i, as Ultralytics does with LOCAL_RANK.
    return local_rank == 0 ? std::atoi(parts[0].c_str()) : local_rank;
  }
  if (local_rank >= int(parts.size())) {
    fail("LOCAL_RANK=", local_rank, " but device=", device, " lists only ", parts.size(), " devices");
  }
  char* end = nullptr;
  const long idx = std::strtol(parts[size_t(local_rank)].c_str(), &end, 10);
  if (*end != '\0' || idx < 0)
    fail("device=", device, ": '", parts[size_t(local_rank)], "' is not a GPU index");
  return int(idx);
}

}  // namespace ywb
