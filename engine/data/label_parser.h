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

/// Box rows whose edges overshoot [0, 1] by no more than this (the rounding of label text written with five
/// or more decimals: 0.948413 +- 0.103175 / 2 ends at 1.0000005) are kept as written, as Ultralytics keeps
/// every box, so that both tools train on the same numbers (docs/PARITY.md, session 13).
constexpr double kLabelTextRounding = 1e-5;

/// Parses label text for a dataset with `nc` classes.
LabelParseResult parseLabels(const std::string& text, int nc);

}  // namespace ywb
