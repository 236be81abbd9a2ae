// `ywb bench eval`: NMS and DetectionMetrics on synthetic YOLOv8-shaped outputs.
#include <chrono>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/rng.h"
#include "core/threads.h"
#include "eval/nms.h"
#include "ywb/eval_bench.h"
#include "ywb/metrics.h"

namespace ywb {
namespace {

using Clock = std::chrono::steady_clock;
using eval::nonMaxSuppression;
double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr int kObjects = 10, kAnchorsPerObject = 20;

// A head output like a trained model's: logits mostly far below conf 0.001 (sigmoid(-9 + 1.5 z)), plus
// kObjects objects per image, each seen by kAnchorsPerObject anchors with jittered boxes and high scores.
at::Tensor syntheticHead(const EvalBenchOptions& o, std::vector<std::vector<GtBox>>* gt) {
  const int64_t B = o.batch, nc = o.classes, A = o.anchors;
  at::Tensor p = at::empty({B, 4 + nc, A});
  p.narrow(1, 0, 2).uniform_(0, 640);
  p.narrow(1, 2, 2).uniform_(8, 200);
  p.narrow(1, 4, nc).normal_(-11, 1.5).sigmoid_();
  auto a = p.accessor<float, 3>();
  const at::Tensor u = at::rand({B, kObjects, 6});
  const at::Tensor jitter = at::randn({B, kObjects * kAnchorsPerObject, 4});
  auto ua = u.accessor<float, 3>();
  auto ja = jitter.accessor<float, 3>();
  for (int64_t b = 0; b < B; ++b) {
    std::vector<GtBox> boxes;
    for (int ob = 0; ob < kObjects; ++ob) {
      const float cx = 40 + 560 * ua[b][ob][0], cy = 40 + 560 * ua[b][ob][1];
      const float w = 16 + 180 * ua[b][ob][2], h = 16 + 180 * ua[b][ob][3];
      const int cls = std::min(int(nc) - 1, int(ua[b][ob][4] * float(nc)));
      boxes.push_back({cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, cls});
      for (int k = 0; k < kAnchorsPerObject; ++k) {
        const int64_t an = (int64_t(ob) * kAnchorsPerObject + k) % A;
        const int j = ob * kAnchorsPerObject + k;
        a[b][0][an] = cx + 0.05f * w * ja[b][j][0];
        a[b][1][an] = cy + 0.05f * h * ja[b][j][1];
        a[b][2][an] = w * (1 + 0.05f * ja[b][j][2]);
        a[b][3][an] = h * (1 + 0.05f * ja[b][j][3]);
        a[b][4 + cls][an] = 0.3f + 0.65f * float(k) / kAnchorsPerObject * ua[b][ob][5];
      }
    }
    if (gt) gt->push_back(std::move(boxes));
  }
  return p;
}

// DetectionMetrics alone at dataset scale: ~7 boxes per image over all classes, coco_dets detections per
// image (jittered copies of the boxes with high scores, the rest random with low scores).
void timeLargeMetrics(const EvalBenchOptions& o, EvalBenchReport* r) {
  Rng rng(mixSeed(o.seed, 5000));
  DetectionMetrics m(o.classes);
  std::vector<GtBox> gt;
  std::vector<DetBox> dt;
  double add_ms = 0;
  for (int i = 0; i < o.coco_images; ++i) {
    gt.clear();
    dt.clear();
    const int n = int(rng.uniformInt(1, 13));
    for (int k = 0; k < n; ++k) {
      const float x = float(rng.uniform(0, 560)), y = float(rng.uniform(0, 560));
      const float w = float(rng.uniform(4, 200)), h = float(rng.uniform(4, 200));
      gt.push_back({x, y, x + w, y + h, int(rng.uniformInt(0, o.classes - 1))});
    }
    for (int k = 0; k < o.coco_dets; ++k) {
      if (k < 2 * n) {
        const GtBox& b = gt[size_t(k % n)];
        const float jx = float(rng.normal() * 4), jy = float(rng.normal() * 4);
        dt.push_back({b.x1 + jx, b.y1 + jy, b.x2 + jx, b.y2 + jy, float(rng.uniform(0.3, 1)),
                      rng.chance(0.9) ? b.cls : int(rng.uniformInt(0, o.classes - 1))});
      } else {
        const float x = float(rng.uniform(0, 600)), y = float(rng.uniform(0, 600));
        dt.push_back({x, y, x + float(rng.uniform(4, 150)), y + float(rng.uniform(4, 150)),
                      float(rng.uniform(0.001, 0.3)), int(rng.uniformInt(0, o.classes - 1))});
      }
    }
    const auto t0 = Clock::now();
    m.addImage(gt, dt);
    add_ms += msSince(t0);
    r->coco_detections += int64_t(dt.size());
  }
  const auto t0 = Clock::now();
  m.compute();
  r->coco_compute_ms = msSince(t0);
  r->coco_add_ms = add_ms;
}

}  // namespace

EvalBenchReport benchmarkEval(const EvalBenchOptions& o) {
  return guarded("bench eval", [&] {
    if (o.images <= 0 || o.batch <= 0 || o.classes <= 0 || o.anchors < kObjects * kAnchorsPerObject) {
      fail("bench eval: images, batch and classes must be positive and anchors >= ",
           kObjects * kAnchorsPerObject);
    }
    const bool cuda = o.device == "cuda";
    if (!cuda && o.device != "cpu") fail("bench eval: device=", o.device, " must be cpu or cuda");
    if (cuda && !(at::hasCUDA() && torch::cuda::is_available()))
      fail("bench eval: device=cuda but no CUDA device");
    const at::Device dev = cuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
    EvalBenchReport r;
    r.threads = configureTorchThreads(o.threads);
    r.device = o.device;
    at::manual_seed(int64_t(o.seed));
    DetectionMetrics metrics(o.classes);
    const int batches = (o.images + o.batch - 1) / o.batch;
    double nms_ms = 0, add_ms = 0, worst_ms = 0, candidates = 0, kept = 0;
    int64_t done = 0;
    {
      std::vector<std::vector<GtBox>> warm_gt;
      nonMaxSuppression(syntheticHead(o, &warm_gt).to(dev));  // warm-up (allocator, CUDA context)
    }
    for (int bi = 0; bi < batches; ++bi) {
      std::vector<std::vector<GtBox>> gt;
      const at::Tensor head = syntheticHead(o, &gt).to(dev);
      candidates += double(head.narrow(1, 4, o.classes).amax(1).gt(0.001).sum().item<int64_t>());
      auto t0 = Clock::now();
      std::vector<at::Tensor> outs = nonMaxSuppression(head);
      for (auto& t : outs) t = t.to(at::kCPU);
      nms_ms += msSince(t0);
      t0 = Clock::now();
      for (size_t i = 0; i < outs.size(); ++i) {
        const std::vector<DetBox> dets = eval::detBoxesFromTensor(outs[i]);
        kept += double(dets.size());
        metrics.addImage(gt[i], dets);
      }
      add_ms += msSince(t0);
      done += o.batch;
      // Worst case: uniform scores put every anchor above conf.
      const at::Tensor worst = at::rand({o.batch, 4 + o.classes, o.anchors}).mul_(600).to(dev);
      t0 = Clock::now();
      for (auto& t : nonMaxSuppression(worst)) t = t.to(at::kCPU);
      worst_ms += msSince(t0);
    }
    const auto t0 = Clock::now();
    const DetectionResults res = metrics.compute();
    r.metrics_compute_ms = msSince(t0);
    r.nms_ms_per_image = nms_ms / double(done);
    r.nms_worst_ms_per_image = worst_ms / double(done);
    r.candidates_per_image = candidates / double(done);
    r.detections_per_image = kept / double(done);
    r.metrics_add_ms_per_image = add_ms / double(done);
    r.map50 = res.map50;
    if (o.coco_images > 0) timeLargeMetrics(o, &r);
    return r;
  });
}

std::string evalBenchText(const EvalBenchOptions& o, const EvalBenchReport& r) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "bench eval: " << o.images << " images, batch " << o.batch << ", " << o.classes << " classes, "
     << o.anchors << " anchors, device " << r.device << ", " << r.threads << " threads\n"
     << "  NMS (conf 0.001, IoU 0.7, max_det 300): " << r.nms_ms_per_image << " ms/image ("
     << std::setprecision(0) << r.candidates_per_image << " candidates -> " << r.detections_per_image
     << " kept)\n"
     << std::setprecision(3) << "  NMS worst case (every anchor a candidate): " << r.nms_worst_ms_per_image
     << " ms/image\n"
     << "  DetectionMetrics::addImage: " << r.metrics_add_ms_per_image << " ms/image\n"
     << "  DetectionMetrics::compute (COCO-exact, all images): " << std::setprecision(1)
     << r.metrics_compute_ms << " ms\n";
  if (o.coco_images > 0) {
    os << "  DetectionMetrics alone, " << o.coco_images << " images, " << r.coco_detections
       << " detections: addImage " << r.coco_add_ms << " ms in all, compute " << r.coco_compute_ms << " ms\n";
  }
  return os.str();
}

std::string evalBenchJson(const EvalBenchOptions& o, const EvalBenchReport& r) {
  nlohmann::ordered_json j;
  j["images"] = o.images;
  j["batch"] = o.batch;
  j["classes"] = o.classes;
  j["anchors"] = o.anchors;
  j["device"] = r.device;
  j["threads"] = r.threads;
  j["nms_ms_per_image"] = r.nms_ms_per_image;
  j["nms_worst_ms_per_image"] = r.nms_worst_ms_per_image;
  j["candidates_per_image"] = r.candidates_per_image;
  j["detections_per_image"] = r.detections_per_image;
  j["metrics_add_ms_per_image"] = r.metrics_add_ms_per_image;
  j["metrics_compute_ms"] = r.metrics_compute_ms;
  j["map50"] = r.map50;
  if (o.coco_images > 0) {
    j["coco_images"] = o.coco_images;
    j["coco_detections"] = r.coco_detections;
    j["coco_add_ms"] = r.coco_add_ms;
    j["coco_compute_ms"] = r.coco_compute_ms;
  }
  return j.dump(2);
}

}  // namespace ywb
