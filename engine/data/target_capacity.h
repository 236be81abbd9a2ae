// The per-image box capacity that fixes a run's padded target shapes (padGroupedTargets), for a loss whose
// shapes may not change between batches (the graph-ready loss, issue 33): a bound, known after the scan, on
// the boxes one training sample can carry. Thread rules: free functions on values.
#pragma once
#include <cstdint>

#include "data/scanned_split.h"
#include "ywb/augment.h"

namespace ywb {

/// The largest box count of one image of `split` (0 for a split without boxes).
int64_t maxBoxesPerImage(const ScannedSplit& split);

/// maxBoxesPerImage(split) x SampleBuilder::maxImagesPerSample(hyp) (1; 4 with Mosaic; 8 with Mosaic and
/// MixUp), rounded up to a multiple of `multiple` (at least `multiple`, so that a split without boxes still
/// gets non-empty shapes). No sample of a loader built from this split and these settings exceeds it, so
/// padGroupedTargets never refuses one of its batches.
int64_t targetCapacity(const ScannedSplit& split, const AugmentParams& hyp, int64_t multiple = 8);

}  // namespace ywb
