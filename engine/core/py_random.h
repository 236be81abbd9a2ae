// The random numbers of CPython's `random` module and of NumPy's legacy global generator (`np.random.*`),
// reproduced bit for bit: both are MT19937 and build a double in [0, 1) from two 32-bit outputs (53 bits).
// They differ only in seeding: Python's random.seed(int) uses MT's init_by_array with the integer's 32-bit
// words, NumPy's np.random.seed(int) MT's init_genrand. Used to replay the augmentation draws of
// Ultralytics' loader processes (data/ultralytics_draws.h).
// Thread rules: one generator per thread; no shared state.
#pragma once
#include <array>
#include <cstdint>

namespace ywb {

class Mt19937 {
 public:
  /// Seeded as CPython's random.seed(n) for a non-negative integer n.
  static Mt19937 python(uint64_t n);
  /// Seeded as NumPy's legacy np.random.seed(n), n < 2^32.
  static Mt19937 numpy(uint32_t n);

  uint32_t next32();
  /// random.random() / np.random.random_sample(): (a >> 5, b >> 6) as a 53-bit fraction.
  double random();
  /// random.uniform(a, b) and np.random.uniform(a, b): a + (b - a) * random().
  double uniform(double a, double b) { return a + (b - a) * random(); }
  /// Skips `n` 32-bit outputs.
  void discard(uint64_t n);

 private:
  Mt19937() = default;
  void initGenrand(uint32_t s);
  void twist();
  std::array<uint32_t, 624> mt_{};
  int pos_ = 624;
};

}  // namespace ywb
