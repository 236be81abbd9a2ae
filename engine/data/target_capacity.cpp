#include "data/target_capacity.h"

#include <algorithm>

#include "core/error.h"
#include "data/sample_builder.h"

namespace ywb {

int64_t maxBoxesPerImage(const ScannedSplit& split) {
  int64_t most = 0;
  for (const auto& r : split.images) most = std::max(most, int64_t(r.boxes.size()));
  return most;
}

int64_t targetCapacity(const ScannedSplit& split, const AugmentParams& hyp, int64_t multiple) {
  if (multiple < 1) fail("target capacity: multiple ", multiple, " must be >= 1");
  const int64_t need = std::max<int64_t>(maxBoxesPerImage(split) * SampleBuilder::maxImagesPerSample(hyp), 1);
  return (need + multiple - 1) / multiple * multiple;
}

}  // namespace ywb
