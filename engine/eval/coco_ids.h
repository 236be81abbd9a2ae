// The ids Ultralytics' validator writes to its COCO results file (save_json), as one rule for every caller:
// image_id = the image's file stem (an integer when the stem is all digits), category_id = class + 1, or the
// COCO 91-id of each of the 80 classes when the split is COCO's own val2017/test-dev2017 list.
// Thread rules: pure functions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ywb/inference.h"

namespace ywb::eval {

/// COCO's category ids (1..90 with gaps) of the 80 detection classes, in class order.
const std::vector<int64_t>& coco80To91();

/// Whether Ultralytics treats a split as COCO's own (its 91-id category mapping): one source whose absolute
/// path contains "coco" and ends with "/val2017.txt" or "/test-dev2017.txt".
bool isCocoSplit(const std::vector<std::string>& sources);

/// category_id of each class: COCO's 91-ids for a COCO split (up to 80 classes), else class + 1.
std::vector<int64_t> cocoCategoryIds(bool coco_split, size_t num_classes);

/// COCO results JSON of per-image detections in original-image pixels, as Ultralytics' save_json writes it:
/// [{"image_id", "file_name", "category_id", "bbox": [x, y, w, h] rounded to 3 decimals, "score" rounded
/// to 5}], `category_ids[class]` as category. Throws ywb::Error for a class outside `category_ids`.
std::string ultralyticsResultsJson(const std::vector<ImageDetections>& detections,
                                   const std::vector<int64_t>& category_ids);

}  // namespace ywb::eval
