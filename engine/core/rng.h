// Deterministic, platform-independent random numbers. Thread rules: one Rng per thread; no shared state.
// std::uniform_real_distribution and friends are implementation-defined, so a dataset or an augmentation
// seeded the same way could differ between standard libraries; these helpers do not.
#pragma once
#include <cstdint>

namespace ywb {

/// Mixes several integers into one well-distributed 64-bit seed (SplitMix64 finaliser chain).
uint64_t mixSeed(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0);

/// xoshiro256** generator with helpers for the distributions the engine needs.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  /// Uniform in [0, 1).
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [lo, hi] (inclusive).
  int64_t uniformInt(int64_t lo, int64_t hi);
  /// Standard normal (Box-Muller).
  double normal();
  /// True with probability p.
  bool chance(double p) { return uniform() < p; }

 private:
  uint64_t s_[4];
};

}  // namespace ywb
