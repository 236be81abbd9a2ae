// Scanning one split: list images, verify each image and label file in parallel, reuse or write the label
// cache, and summarise into a SplitReport. Thread rules: reentrant; runs its own worker threads.
#pragma once
#include <string>

#include "data/scanned_split.h"
#include "ywb/dataset.h"

namespace ywb {

struct ScanOptions {
  int workers = 0;        ///< 0 = all available CPUs
  bool use_cache = true;  ///< read and write the label cache
};

/// Scans split "train", "val" or "test" of `config`. Throws ywb::Error for an unknown or empty split name
/// or an unreadable source; bad data is reported in the result, never thrown.
ScannedSplit scanSplit(const DataConfig& config, const std::string& split, const ScanOptions& options = {});

}  // namespace ywb
