#include "core/py_random.h"

#include <algorithm>
#include <vector>

namespace ywb {

void Mt19937::initGenrand(uint32_t s) {
  mt_[0] = s;
  for (uint32_t i = 1; i < 624; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + i;
  pos_ = 624;
}

Mt19937 Mt19937::numpy(uint32_t n) {
  Mt19937 g;
  g.initGenrand(n);
  return g;
}

Mt19937 Mt19937::python(uint64_t n) {
  // CPython: the key is |n| as 32-bit words, least significant first; 0 is the one-word key [0].
  std::vector<uint32_t> key;
  do {
    key.push_back(uint32_t(n & 0xffffffffu));
    n >>= 32;
  } while (n);
  Mt19937 g;
  g.initGenrand(19650218u);
  uint32_t* mt = g.mt_.data();
  size_t i = 1, j = 0;
  for (size_t k = std::max<size_t>(624, key.size()); k; --k) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + uint32_t(j);
    ++i, ++j;
    if (i >= 624) mt[0] = mt[623], i = 1;
    if (j >= key.size()) j = 0;
  }
  for (size_t k = 623; k; --k) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - uint32_t(i);
    ++i;
    if (i >= 624) mt[0] = mt[623], i = 1;
  }
  mt[0] = 0x80000000u;
  g.pos_ = 624;
  return g;
}

void Mt19937::twist() {
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
  for (int k = 0; k < 624; ++k) {
    const uint32_t y = (mt_[k] & kUpper) | (mt_[(k + 1) % 624] & kLower);
    mt_[k] = mt_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
  }
  pos_ = 0;
}

uint32_t Mt19937::next32() {
  if (pos_ >= 624) twist();
  uint32_t y = mt_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double Mt19937::random() {
  const uint32_t a = next32() >> 5, b = next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

void Mt19937::discard(uint64_t n) {
  while (n) {
    if (pos_ >= 624) twist();
    const uint64_t step = std::min<uint64_t>(n, uint64_t(624 - pos_));
    pos_ += int(step);
    n -= step;
  }
}

}  // namespace ywb
