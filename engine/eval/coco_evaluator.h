// The COCO bbox evaluator itself: pycocotools' COCOeval evaluate() + accumulate() + summarize(), with
// every ordering rule kept (ground truth ignore-last, detections by score with a stable sort, images in
// ascending id order, inclusive IoU threshold, precision envelope, searchsorted 'left').
// Thread rules: one evaluator per thread; run() is not reentrant on the same object.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "ywb/coco_eval.h"

namespace ywb::eval {

/// pycocotools' Params for iouType "bbox" (the defaults are the only values we use; kept as data for
/// clarity).
struct CocoParams {
  std::vector<double> iou_thrs;                     ///< np.linspace(.5, .95, 10), bit for bit
  std::vector<double> rec_thrs;                     ///< np.linspace(0, 1, 101), bit for bit
  std::array<std::array<double, 2>, 4> area_rng{};  ///< all, small, medium, large (by annotation area)
  std::array<int, 3> max_dets{1, 10, 100};
  static CocoParams defaults();
};

/// The matches of one category at area "all", maxDets 100, in pycocotools' accumulate order (score
/// descending, stable); detections ignored by COCO (matched to a crowd box) are left out.
struct CocoCategoryMatches {
  std::vector<double> scores;
  std::vector<uint8_t> tp;  ///< 1 when matched at IoU 0.50
  int64_t num_gt = 0;       ///< non-ignored ground truth at area "all"
};

/// pycocotools' `eval` dict plus the summary.
struct CocoEvalResult {
  CocoParams params;
  std::vector<int64_t> cat_ids;  ///< sorted
  int T = 0, R = 0, K = 0, A = 0, M = 0;
  std::vector<double> precision;  ///< [T][R][K][A][M], -1 where undefined
  std::vector<double> recall;     ///< [T][K][A][M], -1 where undefined
  std::array<double, 12> stats{};
  std::vector<CocoCategoryMatches> matches;  ///< [K]
  std::vector<int64_t> cat_num_dt;           ///< [K] detections evaluated (at most maxDets per image)
  int64_t num_images = 0, num_gt = 0, num_crowd = 0, num_dt = 0, skipped_gt = 0, skipped_dt = 0;

  double& precisionAt(int t, int r, int k, int a, int m) {
    return precision[((((size_t(t) * R + r) * K + k) * A + a) * M + m)];
  }
  double precisionAt(int t, int r, int k, int a, int m) const {
    return precision[((((size_t(t) * R + r) * K + k) * A + a) * M + m)];
  }
  double& recallAt(int t, int k, int a, int m) { return recall[(((size_t(t) * K + k) * A + a) * M + m)]; }
  double recallAt(int t, int k, int a, int m) const {
    return recall[(((size_t(t) * K + k) * A + a) * M + m)];
  }
  /// Mean of precision (ap=true) or recall over entries > -1, like pycocotools' _summarize; -1 when none.
  /// t = -1 means all IoU thresholds; k = -1 all categories.
  double summarize(bool ap, int t, int k, int a, int m) const;
  /// Index of a maxDets value in params.max_dets (-1 when absent).
  int maxDetIndex(int max_det) const;
};

class CocoEvaluator {
 public:
  /// Annotations and detections are referenced, not copied; they must outlive run().
  CocoEvaluator(const CocoGroundTruth& gt, const std::vector<CocoDetection>& detections,
                CocoParams params = CocoParams::defaults());
  /// evaluate + accumulate + summarize. Throws ywb::Error on unknown image ids or duplicate annotation ids.
  CocoEvalResult run();

  /// One evaluated detection of the current category (public only for the .cpp's helpers).
  struct DetRecord {
    double score = 0;
    uint32_t pos = 0;                ///< rank within its image (score order), for maxDets
    std::array<uint32_t, 4> mask{};  ///< per area range: bit t = matched at IoU t; bit 16 + t = ignored
  };

 private:
  void prepare();
  void evaluateCategory(int k, std::vector<DetRecord>& dets, std::vector<int64_t>& npig);
  void accumulateCategory(int k, std::vector<DetRecord>& dets, const std::vector<int64_t>& npig);
  void evaluateImage(const std::vector<uint32_t>& g, std::vector<uint32_t>& d, std::vector<DetRecord>& dets,
                     std::vector<int64_t>& npig);

  const CocoGroundTruth& gt_;
  const std::vector<CocoDetection>& dt_;
  CocoEvalResult res_;
  std::vector<uint32_t> gt_order_, dt_order_;        ///< sorted by (category, image), file order kept
  std::vector<int32_t> gt_img_, dt_img_;             ///< image index per annotation / detection
  std::vector<size_t> gt_cat_start_, dt_cat_start_;  ///< [K + 1] ranges in the orders above
  std::vector<double> ious_;                         ///< scratch
};

}  // namespace ywb::eval
