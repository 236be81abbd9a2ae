// Helpers of the benchmark executables in tests/bench (not tests): key=value arguments and interleaved
// timing.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// Overwrites the defaults in `a` from key=value arguments; false (after a message) for an unknown key.
inline bool parseArgs(int argc, char** argv, std::map<std::string, std::string>& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const auto eq = s.find('=');
    if (eq == std::string::npos || !a.count(s.substr(0, eq))) {
      std::fprintf(stderr, "unknown argument %s\n", s.c_str());
      return false;
    }
    a[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return true;
}

/// Times the variants interleaved (one call of each per round, after one warm-up round), so that a load
/// elsewhere on the machine slows all of them alike; the median and the minimum of each, in ms.
inline std::vector<std::pair<double, double>> timeInterleaved(const std::vector<std::function<void()>>& fs,
                                                              int iters) {
  for (const auto& f : fs) f();
  std::vector<std::vector<double>> ms(fs.size());
  for (int i = 0; i < iters; ++i)
    for (size_t k = 0; k < fs.size(); ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      fs[k]();
      ms[k].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  std::vector<std::pair<double, double>> out;
  for (auto& v : ms) {
    std::sort(v.begin(), v.end());
    out.emplace_back(v[v.size() / 2], v.front());
  }
  return out;
}

}  // namespace bench
