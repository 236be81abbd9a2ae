#include "core/rng.h"

#include <cmath>

namespace ywb {
namespace {

uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t x = a;
  uint64_t h = splitmix(x);
  for (uint64_t v : {b, c, d}) {
    x = h ^ (v + 0x632BE59BD9B4E019ull);
    h = splitmix(x);
  }
  return h;
}

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = splitmix(x);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  return double(next() >> 11) * 0x1.0p-53;
}

int64_t Rng::uniformInt(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = uint64_t(hi - lo) + 1;
  return lo + int64_t(next() % span);  // modulo bias is negligible for the small spans used here
}

double Rng::normal() {
  double u1 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace ywb
