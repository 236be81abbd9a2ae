// Benchmark of the validation tail: NMS on YOLOv8-shaped head outputs and DetectionMetrics (COCO-exact).
// Thread rules: benchmarkEval() is reentrant; it sets LibTorch's intra-op thread count.
#pragma once
#include <cstdint>
#include <string>

namespace ywb {

struct EvalBenchOptions {
  int images = 512;            ///< images pushed through NMS and the metrics
  int batch = 16;              ///< NMS batch size
  int classes = 80;            ///< head classes
  int anchors = 8400;          ///< head anchors (640 px: 80^2 + 40^2 + 20^2)
  int threads = 0;             ///< LibTorch intra-op threads, 0 = all available CPUs
  std::string device = "cpu";  ///< "cpu" or "cuda"
  uint64_t seed = 0;
  int coco_images = 0;  ///< > 0: also time DetectionMetrics alone on this many images (val2017: 5000)
  int coco_dets = 100;  ///< detections per image for that run
};

struct EvalBenchReport {
  int threads = 0;
  std::string device;
  double nms_ms_per_image = 0;        ///< trained-model-like scores: few anchors above conf 0.001
  double nms_worst_ms_per_image = 0;  ///< every anchor above conf (uniform scores), max_nms and max_det bind
  double candidates_per_image = 0;    ///< anchors above conf in the realistic case
  double detections_per_image = 0;    ///< kept after NMS in the realistic case
  double metrics_add_ms_per_image = 0;  ///< DetectionMetrics::addImage (incl. confusion matrix)
  double metrics_compute_ms = 0;        ///< DetectionMetrics::compute for all images
  double map50 = 0;                     ///< of the synthetic scene, a sanity value only
  double coco_add_ms = 0;               ///< coco_images run: all addImage calls
  double coco_compute_ms = 0;           ///< coco_images run: compute()
  int64_t coco_detections = 0;
};

/// Runs the benchmark on synthetic data. Throws ywb::Error for bad options or a missing CUDA device.
EvalBenchReport benchmarkEval(const EvalBenchOptions& options);

std::string evalBenchText(const EvalBenchOptions& options, const EvalBenchReport& report);
std::string evalBenchJson(const EvalBenchOptions& options, const EvalBenchReport& report);

}  // namespace ywb
