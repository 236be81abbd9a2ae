#include "sys/host_info.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ywb {

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto s = line.substr(colon + 1);
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
      }
    }
  }
  return "unknown";
}

std::set<std::string> cpuFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) flags.insert(w);
    break;  // every core lists the same flags
  }
  return flags;
}

int logicalCpuCount() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

void memoryInfo(int64_t* total, int64_t* available) {
  *total = -1;
  *available = -1;
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemTotal:") *total = kb * 1024;
    if (key == "MemAvailable:") *available = kb * 1024;
  }
}

int64_t processRss() {
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * int64_t(sysconf(_SC_PAGESIZE));
}

int64_t processPeakRss() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return int64_t(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

namespace {

// Seconds since this process was forked (/proc/self/stat against /proc/uptime), -1 if unknown. An exec keeps
// the record: a script that runs a while and then exec's ywb counts its own time in it.
double forkAgeSeconds() {
  std::ifstream stat("/proc/self/stat"), up("/proc/uptime");
  std::string line;
  double uptime = 0;
  if (!std::getline(stat, line) || !(up >> uptime)) return -1;
  // Field 2 (the command) is in parentheses and may hold spaces: count fields after the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i < 22 && rest >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  if (!(rest >> start_ticks)) return -1;
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? std::max(0.0, uptime - double(start_ticks) / double(hz)) : -1;
}

// This process's CPU seconds so far (user and system; an exec keeps them too, but not its children's).
double cpuSeconds() {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Taken in static initialisation: after the loader has mapped every library, before main.
struct EngineStart {
  double fork_age, cpu;
  std::chrono::steady_clock::time_point at;
};
const EngineStart& engineStart() {
  static const EngineStart start{forkAgeSeconds(), cpuSeconds(), std::chrono::steady_clock::now()};
  return start;
}
[[maybe_unused]] const EngineStart& kEngineStartTaken = engineStart();

}  // namespace

double processAgeFrom(double fork_age_at_start, double cpu_at_start, double since_start) {
  if (fork_age_at_start >= 0 && fork_age_at_start <= kLongestLoadS) return fork_age_at_start + since_start;
  // Exec'd late (or no /proc): the loader's time is about its CPU time (it maps and relocates; measured here
  // 0.67-0.77 s of fork age against 0.76-0.87 s of CPU), which also holds the earlier program's own CPU time
  // (its children's not: a build's compilers are children).
  double loaded = std::max(0.0, cpu_at_start);
  if (fork_age_at_start >= 0) loaded = std::min(loaded, fork_age_at_start);
  return loaded + since_start;
}

double processAgeSeconds() {
  const EngineStart& e = engineStart();
  return processAgeFrom(e.fork_age, e.cpu,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - e.at).count());
}

int64_t diskFree(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path.empty() ? "." : path, ec);
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  struct statvfs st {};
  if (statvfs(p.c_str(), &st) != 0) return -1;
  return int64_t(st.f_bavail) * int64_t(st.f_frsize);
}

bool cpuTimes(uint64_t* busy, uint64_t* total) {
  std::ifstream in("/proc/stat");
  std::string cpu;
  uint64_t user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> sys >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu") {
    return false;
  }
  *busy = user + nice + sys + irq + softirq + steal;
  *total = *busy + idle + iowait;
  return true;
}

std::string qtRuntimeVersion() {
  // qVersion() is declared extern "C" by Qt, so it can be found without linking Qt into the engine.
  void* h = dlopen("libQt6Core.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen("libQt6Core.so.6", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return {};
  std::string v;
  if (auto fn = reinterpret_cast<const char* (*)()>(dlsym(h, "qVersion"))) v = fn();
  dlclose(h);
  return v;
}

}  // namespace ywb
