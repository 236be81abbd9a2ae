// Comparing two checkpoints tensor by tensor, for the bit-exact resume tests.
#pragma once
#include <QtGlobal>
#include <string>

#include "io/safetensors.h"

namespace ywb::test {

/// True when every tensor of `a` whose name starts with `prefix` ("model.", "ema.", "optim.") is in `b` and
/// bitwise equal there, and there is at least one; logs the first tensor that differs.
inline bool samePrefix(const SafetensorsFile& a, const SafetensorsFile& b, const std::string& prefix) {
  int compared = 0;
  for (const auto& [name, t] : a.tensors) {
    if (name.rfind(prefix, 0) != 0) continue;
    if (!b.contains(name) || !t.equal(b.at(name))) {
      qWarning("tensor %s differs", name.c_str());
      return false;
    }
    ++compared;
  }
  return compared > 0;
}

}  // namespace ywb::test
