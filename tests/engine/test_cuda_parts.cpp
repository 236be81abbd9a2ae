// The CPU-testable parts of the GPU path (engine/cuda): the batch prefetcher's ordering and buffer
// recycling over the CPU stand-in for a CUDA side stream, the CUDA graph bookkeeping (when to capture,
// replay, drop), GraphedModel's eager fallback, padded-target shapes, and what the CUDA switch reports in a
// build without CUDA.
#include <torch/torch.h>
#include <QtTest>
#include <chrono>
#include <thread>

#include "cuda/batch_prefetcher.h"
#include "cuda/copy_stream.h"
#include "cuda/cuda_runtime.h"
#include "cuda/graph_capture_policy.h"
#include "cuda/graphed_model.h"
#include "loss/detection_loss.h"
#include "model/detection_model.h"

using ywb::Batch;
using namespace ywb::cuda;

namespace {

// Batch k of a fake loader: images filled with the value k, k + 1 target rows filled with k. `heights`
// gives each batch's image height (a new height = a new shape).
struct FakeSource {
  std::vector<int64_t> heights;
  size_t k = 0;
  bool operator()(Batch& b) {
    if (k >= heights.size()) return false;
    b = Batch();
    b.images = at::full({2, 3, heights[k], 8}, int64_t(k), at::kByte);
    b.targets = at::full({int64_t(k) + 1, 6}, double(k), at::kFloat);
    b.index = k;
    ++k;
    return true;
  }
};

GraphKey key(int64_t n, int64_t h) {
  GraphKey g;
  g.sizes = {n, 3, h, h};
  g.dtype = int(at::kFloat);
  return g;
}

}  // namespace

class TestCudaParts : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void prefetcherKeepsOrderAndWaitsForEachCopy() {
    // Every copy takes 30 ms on the stand-in's worker: a batch handed out before its copy finished would
    // still hold the previous contents of its recycled buffer (batch k-2's value), or garbage.
    auto src = std::make_shared<FakeSource>(FakeSource{std::vector<int64_t>(7, 8)});
    BatchPrefetcher p([src](Batch& b) { return (*src)(b); }, makeThreadCopyStream(30));
    p.start();
    Batch b;
    for (int64_t k = 0; k < 7; ++k) {
      QVERIFY(p.next(b));
      QCOMPARE(int64_t(b.index), k);
      QCOMPARE(b.images.min().item<int64_t>(), k);
      QCOMPARE(b.images.max().item<int64_t>(), k);
      QCOMPARE(b.targets.size(0), k + 1);
      QCOMPARE(b.targets.max().item<double>(), double(k));
    }
    QVERIFY(!p.next(b));
    QVERIFY(!p.next(b));  // stays at the end
  }

  void prefetcherRecyclesTwoBuffersAndNeverOverwritesTheBatchInUse() {
    auto src = std::make_shared<FakeSource>(FakeSource{std::vector<int64_t>(6, 8)});
    BatchPrefetcher p([src](Batch& b) { return (*src)(b); }, makeThreadCopyStream(5));
    p.start();
    Batch b;
    std::vector<const void*> ptrs;
    for (int64_t k = 0; k < 6; ++k) {
      QVERIFY(p.next(b));
      ptrs.push_back(b.images.data_ptr());
      // The copy of batch k+1 is in flight now; give it time to land, then batch k must be untouched (it
      // goes into the other buffer).
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      QCOMPARE(b.images.max().item<int64_t>(), k);
      QCOMPARE(b.images.min().item<int64_t>(), k);
    }
    // Fixed shapes: two buffers, alternating (A B A B A B); 6 copies = 2 allocations + 4 reuses.
    QVERIFY(ptrs[0] != ptrs[1]);
    for (size_t i = 2; i < ptrs.size(); ++i) QCOMPARE(ptrs[i], ptrs[i - 2]);
    QCOMPARE(p.stats().buffers_allocated, int64_t(2));
    QCOMPARE(p.stats().buffers_reused, int64_t(4));
    QCOMPARE(p.stats().batches, int64_t(6));
  }

  void prefetcherAllocatesForANewShapeAndRestartsEpochs() {
    // Heights 8 8 8 16 16 8: batch 3 (16) needs a new buffer in its slot, batch 4 (16) too (the other slot
    // holds 8), batch 5 (8) again. Then a new epoch started while batch 1 was in flight.
    auto src = std::make_shared<FakeSource>(FakeSource{{8, 8, 8, 16, 16, 8}});
    BatchPrefetcher p([src](Batch& b) { return (*src)(b); }, makeThreadCopyStream(1));
    p.start();
    Batch b;
    for (int64_t k = 0; k < 6; ++k) {
      QVERIFY(p.next(b));
      QCOMPARE(b.images.size(2), src->heights[size_t(k)]);
      QCOMPARE(b.images.max().item<int64_t>(), k);
    }
    QVERIFY(!p.next(b));
    // slots: A8 B8 A(8 reuse) B16(new) A16(new) B8(new)
    QCOMPARE(p.stats().buffers_allocated, int64_t(5));
    QCOMPARE(p.stats().buffers_reused, int64_t(1));

    src->k = 0;
    p.start();
    QVERIFY(p.next(b));
    QCOMPARE(b.images.max().item<int64_t>(), int64_t(0));
    src->k = 3;  // "startEpoch": the loader restarts; batch 1 was in flight and is forgotten
    p.start();
    QVERIFY(p.next(b));
    QCOMPARE(int64_t(b.index), int64_t(3));
    QCOMPARE(b.images.max().item<int64_t>(), int64_t(3));
  }

  void graphPolicyCapturesAfterWarmupThenReplays() {
    GraphCapturePolicy g(GraphPolicyOptions{3, 4});
    // Three eager steps of a new shape (cuDNN autotuning, lazy init), the fourth captures, then replays.
    for (int i = 0; i < 3; ++i) QCOMPARE(g.decide(key(16, 640)), GraphAction::Eager);
    QCOMPARE(g.decide(key(16, 640)), GraphAction::Capture);
    g.captured();
    for (int i = 0; i < 5; ++i) QCOMPARE(g.decide(key(16, 640)), GraphAction::Replay);
    // The short last batch of an epoch runs eagerly and keeps the graph; the next epoch replays at once.
    QCOMPARE(g.decide(key(7, 640)), GraphAction::Eager);
    QVERIFY(g.hasGraph());
    QCOMPARE(g.decide(key(16, 640)), GraphAction::Replay);
    QCOMPARE(g.captures(), int64_t(1));
    QCOMPARE(g.replays(), int64_t(6));
    QCOMPARE(g.drops(), int64_t(0));
    QCOMPARE(g.eagerSteps(), int64_t(4));
    // A shape that stays (imgsz changed) replaces the graph after its own warmup.
    for (int i = 0; i < 3; ++i) QCOMPARE(g.decide(key(16, 320)), GraphAction::Eager);
    QVERIFY(g.hasGraph());
    QCOMPARE(g.decide(key(16, 320)), GraphAction::Capture);
    QCOMPARE(g.drops(), int64_t(1));
    QVERIFY(!g.hasGraph());
    g.captured();
    QCOMPARE(g.decide(key(16, 320)), GraphAction::Replay);
    // The old shape is no longer held: it warms up again.
    QCOMPARE(g.decide(key(16, 640)), GraphAction::Eager);
  }

  void graphPolicyGivesUpOnShapesThatKeepChanging() {
    GraphCapturePolicy g(GraphPolicyOptions{1, 2});
    // warmup 1: each new shape is eager once, then captured; a third capture is refused.
    const int64_t sizes[] = {320, 352, 384};
    for (int64_t s : sizes) {
      QCOMPARE(g.decide(key(8, s)), GraphAction::Eager);
      const GraphAction a = g.decide(key(8, s));
      if (s == 384) {
        QCOMPARE(a, GraphAction::Eager);
      } else {
        QCOMPARE(a, GraphAction::Capture);
        g.captured();
      }
    }
    QVERIFY(g.disabled());
    QVERIFY(!g.hasGraph());
    QVERIFY2(g.note().find("kept changing") != std::string::npos, g.note().c_str());
    QCOMPARE(g.captures(), int64_t(2));
    QCOMPARE(g.drops(), int64_t(2));
    QCOMPARE(g.decide(key(8, 352)), GraphAction::Eager);  // off for good
  }

  void graphPolicyFailedCaptureTurnsGraphsOff() {
    GraphCapturePolicy g(GraphPolicyOptions{0, 4});
    QCOMPARE(g.decide(key(4, 64)), GraphAction::Capture);  // warmup 0: capture at once
    g.captureFailed("operation not permitted when stream is capturing");
    QVERIFY(g.disabled());
    QVERIFY(g.note().find("not permitted") != std::string::npos);
    QCOMPARE(g.decide(key(4, 64)), GraphAction::Eager);
    GraphKey a = key(4, 64), b = a;
    b.channels_last = true;
    QVERIFY(a != b);  // memory format is part of the key
  }

  void graphedModelIsEagerOnTheCpu() {
    torch::manual_seed(0);
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 3);
    m->train();
    ywb::model::DetectionModel ref = ywb::model::cloneModel(m);
    GraphedModel gm(m, GraphPolicyOptions{0, 4});
    QVERIFY(!gm.available());
    const at::Tensor x = at::rand({1, 3, 64, 64});
    const auto a = gm.forward(x, false, at::kFloat);
    const auto b = ref->forward(x);
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) QVERIFY(at::allclose(a[i], b[i], 1e-5, 1e-6));
    a[0].sum().backward();  // gradients reach the parameters as usual
    QVERIFY(m->parameters().front().grad().defined());
    QCOMPARE(gm.policy().captures(), int64_t(0));
  }

  void graphedEndToEndHeadsOnTheCpu() {
    // A YOLO26 head through GraphedModel (eager on the CPU): both branches come back as the model's own
    // forwardHeads gives them (three levels each, the one-to-one maps last), and gradients reach the
    // one-to-one branch's parameters but, through its detached features, not the backbone's.
    torch::manual_seed(0);
    ywb::model::DetectionModel m = ywb::model::buildModel("yolo26n.yaml", 3);
    m->train();
    ywb::model::DetectionModel ref = ywb::model::cloneModel(m);
    GraphedModel gm(m, GraphPolicyOptions{0, 4});
    const at::Tensor x = at::rand({1, 3, 64, 64});
    const ywb::model::HeadOutputs a = gm.forwardHeads(x, false, at::kFloat);
    const ywb::model::HeadOutputs b = ref->forwardHeads(x);
    QCOMPARE(a.one2many.size(), size_t(3));
    QCOMPARE(a.one2one.size(), size_t(3));
    for (size_t i = 0; i < 3; ++i) {
      QVERIFY(at::allclose(a.one2many[i], b.one2many[i], 1e-5, 1e-6));
      QVERIFY(at::allclose(a.one2one[i], b.one2one[i], 1e-5, 1e-6));
    }
    QCOMPARE(gm.forward(x, false, at::kFloat).size(), size_t(3));  // forward(): the one-to-many maps
    m->zero_grad();
    a.one2one[0].sum().backward();
    bool head_grad = false, backbone_grad = false;
    for (const auto& p : m->named_parameters()) {
      const bool has = p.value().grad().defined() && p.value().grad().abs().sum().item<double>() > 0;
      if (p.key().find("one2one") != std::string::npos) head_grad = head_grad || has;
      if (p.key().rfind("model.0.", 0) == 0) backbone_grad = backbone_grad || has;
    }
    QVERIFY(head_grad);
    QVERIFY(!backbone_grad);
  }

  void paddedTargetsHaveFixedShapes() {
    // Rows for images 0, 0, 2, 2, 2 of a batch of 4: Mmax = 3, so every tensor is [4, 3, ...]; image 1
    // and 3 are all padding. Boxes are scaled to pixels: cx 0.5, w 0.25 of 640 -> x1 = 240, x2 = 400.
    const at::Tensor t = at::tensor(std::vector<float>{0, 1, .5f, .5f, .25f, .25f,  //
                                                       0, 2, .5f, .5f, .25f, .25f,  //
                                                       2, 0, .5f, .5f, .25f, .25f,  //
                                                       2, 1, .5f, .5f, .25f, .25f,  //
                                                       2, 2, .5f, .5f, .25f, .25f})
                             .view({5, 6});
    const auto p = ywb::loss::padTargets(t, 4, 3, 640, 640);
    QCOMPARE(p.labels.sizes().vec(), (std::vector<int64_t>{4, 3, 1}));
    QCOMPARE(p.bboxes.sizes().vec(), (std::vector<int64_t>{4, 3, 4}));
    QCOMPARE(p.mask.sizes().vec(), (std::vector<int64_t>{4, 3, 1}));
    const at::Tensor per_image = p.mask.sum({1, 2}).to(at::kLong);
    QCOMPARE(per_image[0].item<int64_t>(), int64_t(2));
    QCOMPARE(per_image[1].item<int64_t>(), int64_t(0));
    QCOMPARE(per_image[2].item<int64_t>(), int64_t(3));
    QCOMPARE(per_image[3].item<int64_t>(), int64_t(0));
    QCOMPARE(p.bboxes[0][0][0].item<double>(), 240.0);
    QCOMPARE(p.bboxes[0][0][2].item<double>(), 400.0);
    QCOMPARE(p.bboxes[1].abs().sum().item<double>(), 0.0);  // padding rows are zero
  }

  void cudaSwitchReportsItsState() {
    // This test runs in every build: without CUDA compiled in each service says so instead of failing.
    std::string why;
    const auto stats = allocatorStats(0, &why);
    auto stream = makeCudaCopyStream(at::Device(at::kCPU), &why);
    QVERIFY(!stream);
    QVERIFY(!why.empty());
    if (!compiledWithCuda()) {
      QVERIFY(!stats.has_value());
      QVERIFY(!setCudnnBenchmark(true));
      QVERIFY(!makeCudaCopyStream(at::Device(at::kCUDA, 0), &why));
      QVERIFY2(why.find("without CUDA") != std::string::npos, why.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestCudaParts)
#include "test_cuda_parts.moc"
