// Host facts from /proc and statvfs. Thread rules: free functions, reentrant.
#pragma once
#include <cstdint>
#include <set>
#include <string>

namespace ywb {

std::string cpuModelName();
/// The CPU's feature flags from /proc/cpuinfo ("avx2", "avx512_bf16", ...); empty when unreadable.
std::set<std::string> cpuFlags();
int logicalCpuCount();
/// MemTotal and MemAvailable from /proc/meminfo, in bytes (-1 when unreadable).
void memoryInfo(int64_t* total, int64_t* available);
/// Resident set size of this process in bytes.
int64_t processRss();
/// Peak resident set size of this process since it started, in bytes (getrusage's ru_maxrss).
int64_t processPeakRss();
/// Seconds since this process started: its fork (/proc/self/stat against /proc/uptime; 10 ms resolution),
/// unless it was already older than kLongestLoadS when the engine initialised (before main): then it ran
/// something else first and exec'd this program (installer/quickstart.sh builds, then exec's ywb), and the
/// count starts at the engine's initialisation plus the process's CPU time by then (the loader's, about).
/// processAgeFrom is the rule.
double processAgeSeconds();
constexpr double kLongestLoadS = 10;  // fork to static initialisation: the loader, even for CUDA's libraries
double processAgeFrom(double fork_age_at_start, double cpu_at_start, double since_start);
/// Free bytes on the filesystem holding `path` (or its nearest existing parent); -1 when unknown.
int64_t diskFree(const std::string& path);
/// Cumulative (busy, total) CPU jiffies from /proc/stat.
bool cpuTimes(uint64_t* busy, uint64_t* total);
/// Qt runtime version found on this machine (dlopen of libQt6Core), empty when none.
std::string qtRuntimeVersion();

}  // namespace ywb
