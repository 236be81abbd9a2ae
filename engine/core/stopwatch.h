// Wall-clock seconds between two points of a steady clock: what the engine's per-stage timings add up.
// Thread rules: pure functions.
#pragma once
#include <chrono>

namespace ywb {

using SteadyClock = std::chrono::steady_clock;

/// Seconds from `t0` to now.
inline double secondsSince(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

}  // namespace ywb
