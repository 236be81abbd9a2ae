// COCO bbox evaluation computed exactly as the official COCO API (pycocotools COCOeval, iouType
// "bbox") computes it: evaluate / accumulate / summarize, the same 12 numbers to floating-point noise.
// Thread rules: all functions are reentrant; the structs are plain values.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ywb {

/// One ground-truth box. bbox is COCO's [x, y, width, height] in pixels.
struct CocoAnnotation {
  int64_t id = 0;  ///< must be non-zero: pycocotools treats a match to annotation id 0 as no match
  int64_t image_id = 0;
  int64_t category_id = 0;
  double x = 0, y = 0, w = 0, h = 0;
  double area = 0;       ///< the annotation's `area`; the small/medium/large ranges use it, not w*h
  bool iscrowd = false;  ///< crowd boxes: IoU = intersection / detection area, never a false negative
};

struct CocoCategory {
  int64_t id = 0;
  std::string name;
};

/// A ground-truth set in COCO instances terms. The order of `annotations` matters (it is the tie order of
/// pycocotools' matching), so keep the file order.
struct CocoGroundTruth {
  std::vector<int64_t> image_ids;
  /// When the file names its images by strings (Ultralytics' file stems; pycocotools accepts any id): each
  /// string and the number it stands for here. Numbers follow the strings' sorted order, so images are
  /// visited in pycocotools' order (sorted ids). Empty for integer ids.
  std::map<std::string, int64_t> string_image_ids;
  std::vector<CocoCategory> categories;
  std::vector<CocoAnnotation> annotations;
  int64_t area_from_box = 0;  ///< annotations that had no `area` field (w*h was used)
};

/// One detection in COCO results terms (bbox [x, y, width, height] in pixels).
struct CocoDetection {
  int64_t image_id = 0;
  int64_t category_id = 0;
  double x = 0, y = 0, w = 0, h = 0;
  double score = 0;
};

/// Per-category numbers at area "all", maxDets 100; -1 where the category has no (non-crowd) ground truth.
struct CocoCategoryStats {
  int64_t id = 0;
  std::string name;
  int64_t num_gt = 0;  ///< non-crowd ground-truth boxes
  int64_t num_dt = 0;  ///< detections evaluated (at most 100 per image)
  double ap = -1;      ///< AP @[.50:.95]
  double ap50 = -1;
  double ap75 = -1;
  double ar100 = -1;  ///< AR @[.50:.95], maxDets 100
};

/// The result of a COCO evaluation.
struct CocoStats {
  /// AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl (pycocotools' `stats`; -1 = undefined).
  std::array<double, 12> stats{};
  std::vector<CocoCategoryStats> per_category;  ///< sorted by category id
  int64_t num_images = 0;
  int64_t num_gt = 0;         ///< annotations evaluated (crowd included)
  int64_t num_crowd = 0;      ///< of which crowd
  int64_t num_dt = 0;         ///< detections given for known categories
  int64_t skipped_gt = 0;     ///< annotations of unknown images/categories (pycocotools skips them too)
  int64_t skipped_dt = 0;     ///< detections of unknown categories (pycocotools skips them too)
  int64_t area_from_box = 0;  ///< annotations without `area` (w*h used)
};

/// Short names of the 12 stats, in order: "AP", "AP50", ..., "ARl".
const std::array<const char*, 12>& cocoStatNames();

/// Parses COCO instances JSON (images, categories, annotations). `source` names it in error messages.
CocoGroundTruth parseCocoGroundTruth(const std::string& json_text,
                                     const std::string& source = "ground truth");
/// Reads and parses a COCO instances JSON file. Throws ywb::Error with the path and what is wrong.
CocoGroundTruth loadCocoGroundTruth(const std::string& path);

/// Parses COCO results JSON: a list of {image_id, category_id, bbox, score} (or an object with such a
/// list under "annotations"). String image ids are looked up in `gt`'s string_image_ids (an id the ground
/// truth lacks is an error, as in pycocotools' loadRes); without `gt` they are an error.
std::vector<CocoDetection> parseCocoDetections(const std::string& json_text,
                                               const std::string& source = "detections",
                                               const CocoGroundTruth* gt = nullptr);
std::vector<CocoDetection> loadCocoDetections(const std::string& path, const CocoGroundTruth* gt = nullptr);

/// COCO results JSON for `dets` (bbox rounded to 3 decimals, score to 5, as Ultralytics' save_json does).
std::string cocoDetectionsJson(const std::vector<CocoDetection>& dets);
/// Writes cocoDetectionsJson() to `path` atomically. Throws ywb::Error naming the path.
void writeCocoDetections(const std::string& path, const std::vector<CocoDetection>& dets);

/// Runs COCOeval (bbox). Throws ywb::Error when a detection names an image that is not in `gt`
/// (pycocotools refuses such results too), or on duplicate annotation ids.
CocoStats evaluateCoco(const CocoGroundTruth& gt, const std::vector<CocoDetection>& detections);

/// Loads both files and runs evaluateCoco().
CocoStats evaluateCocoFiles(const std::string& gt_json, const std::string& dt_json);

/// The 12 lines pycocotools' summarize() prints (" Average Precision  (AP) @[ IoU=0.50:0.95 | ... ] =
/// 0.xxx").
std::string cocoStatsText(const CocoStats& stats);
/// The stats, names, per-category numbers and counts as a JSON object.
std::string cocoStatsJson(const CocoStats& stats);

}  // namespace ywb
