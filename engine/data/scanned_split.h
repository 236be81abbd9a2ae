// The verified contents of one dataset split, as the loader and preview consume them.
// Thread rules: plain value types; immutable once built, so share them read-only between threads.
#pragma once
#include <string>
#include <vector>

#include "ywb/dataset.h"

namespace ywb {

/// One label box: class id and normalised centre/size (clipped to [0, 1]).
struct LabelBox {
  int cls = 0;
  float cx = 0, cy = 0, w = 0, h = 0;
  bool operator==(const LabelBox& o) const {
    return cls == o.cls && cx == o.cx && cy == o.cy && w == o.w && h == o.h;
  }
};

/// A usable image: its path, its size after EXIF orientation, and its boxes (may be empty: background).
struct ImageRecord {
  std::string image;
  std::string label;  ///< expected label path (may not exist for backgrounds)
  int width = 0;
  int height = 0;
  std::vector<LabelBox> boxes;
  /// Height over width: what rectangular batches are ordered and shaped by (rectBatchShape).
  double aspect() const { return double(height) / width; }
};

/// An image excluded from training (unreadable image or an invalid label row).
struct ExcludedImage {
  std::string image;
  std::string label;
  std::string reason;  ///< the first problem found
};

struct ScannedSplit {
  std::string name;                     ///< "train", "val", "test"
  std::vector<std::string> names;       ///< class names
  std::vector<ImageRecord> images;      ///< usable images only, sorted by path
  std::vector<ExcludedImage> excluded;  ///< corrupt images, sorted by path (listed, never trained on)
  SplitReport report;
};

}  // namespace ywb
