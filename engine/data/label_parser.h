// Parsing and verification of one YOLO label file (`class cx cy w h` per row, or a polygon row
// `class x1 y1 x2 y2 ...` which becomes its bounding box). Thread rules: pure functions.
#pragma once
#include <string>
#include <vector>

#include "data/scanned_split.h"

namespace ywb {

struct LabelProblem {
  int line = 0;
  std::string reason;
};

struct LabelParseResult {
  std::vector<LabelBox> boxes;
  std::vector<LabelProblem> problems;
  bool invalid = false;        ///< a row was malformed: the image must be excluded (Ultralytics semantics)
  int duplicates_removed = 0;  ///< exact duplicate rows dropped
  int rows_dropped = 0;        ///< zero-area rows dropped
};

/// Coordinates may overshoot [0, 1] by this much (rounding in label exporters) and are clipped.
constexpr double kLabelClipTolerance = 0.01;

/// Parses label text for a dataset with `nc` classes.
LabelParseResult parseLabels(const std::string& text, int nc);

}  // namespace ywb
