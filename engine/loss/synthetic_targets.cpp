#include "loss/synthetic_targets.h"

#include <vector>

#include "core/rng.h"

namespace ywb::loss {

at::Tensor syntheticTargets(int batch, int nc, uint64_t seed) {
  Rng rng(mixSeed(seed, 0x7a26));
  std::vector<float> rows;
  for (int i = 0; i < batch; ++i) {
    const int64_t n = rng.uniformInt(1, 6);
    for (int64_t j = 0; j < n; ++j) {
      const double w = rng.uniform(0.05, 0.5), h = rng.uniform(0.05, 0.5);
      rows.insert(rows.end(),
                  {float(i), float(rng.uniformInt(0, nc - 1)), float(rng.uniform(w / 2, 1 - w / 2)),
                   float(rng.uniform(h / 2, 1 - h / 2)), float(w), float(h)});
    }
  }
  return at::tensor(rows).view({-1, 6});
}

}  // namespace ywb::loss
