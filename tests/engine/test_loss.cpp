// Tests of the YOLOv8 loss: IoU/CIoU and DFL against hand-computed values, the assigner on constructed
// cases (with 8.4's small-box rule and second top-k), and the full loss (empty targets, crowded/border boxes,
// overfitting one batch).
#include <QtTest>
#include <cmath>

#include "loss/box_iou.h"
#include "loss/detection_loss.h"
#include "loss/dfl_loss.h"
#include "loss/model_loss.h"
#include "loss/tal_assigner.h"
#include "model/detection_model.h"
#include "ywb/error.h"

using namespace ywb::loss;

namespace {

double scalar(const at::Tensor& t) {
  return t.item<double>();
}

// Anchors of a g x g grid at stride s, in pixels: (s*(i+0.5), s*(j+0.5)), row-major (y outer).
at::Tensor gridAnchors(int64_t g, double s) {
  const at::Tensor c = (at::arange(g, at::kFloat) + 0.5) * s;
  return at::stack({c.view({1, g}).expand({g, g}), c.view({g, 1}).expand({g, g})}, -1).reshape({-1, 2});
}

// Index of the anchor centred at pixel (x, y) on an 8 x 8 grid at stride 8.
int64_t anchorAt(double x, double y) {
  return int64_t(y / 8) * 8 + int64_t(x / 8);
}

// Synthetic batch: grey images with filled coloured rectangles; targets are the rectangles.
std::pair<at::Tensor, at::Tensor> syntheticBatch(int64_t n, int64_t size) {
  at::Tensor img = at::full({n, 3, size, size}, 0.45);
  std::vector<float> rows;
  const float boxes[][5] = {
      {0, 0.30f, 0.35f, 0.40f, 0.30f}, {1, 0.70f, 0.70f, 0.30f, 0.45f}, {0, 0.75f, 0.2f, 0.3f, 0.2f}};
  for (int64_t i = 0; i < n; ++i) {
    for (int b = 0; b < (i == 0 ? 2 : 3); ++b) {
      const auto& r = boxes[b];
      const int64_t x1 = int64_t((r[1] - r[3] / 2) * size), x2 = int64_t((r[1] + r[3] / 2) * size);
      const int64_t y1 = int64_t((r[2] - r[4] / 2) * size), y2 = int64_t((r[2] + r[4] / 2) * size);
      img[i].slice(1, y1, y2).slice(2, x1, x2).select(0, int64_t(r[0])).fill_(0.95);
      rows.insert(rows.end(), {float(i), r[0], r[1], r[2], r[3], r[4]});
    }
  }
  return {img, at::tensor(rows).view({-1, 6})};
}

}  // namespace

class TestLoss : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::manual_seed(0); }

  void iouAndCiouHandValues() {
    // [0,0,2,2] vs [1,1,3,3]: intersection 1, union 4 + 4 - 1 = 7, IoU 1/7.
    // CIoU: same aspect so v = 0; centres (1,1), (2,2): rho^2 = 1 + 1 = 2; enclosing 3 x 3: c^2 = 18;
    // CIoU = 1/7 - 2/18 = 0.031746.
    const at::Tensor a = at::tensor({0.f, 0.f, 2.f, 2.f}), b = at::tensor({1.f, 1.f, 3.f, 3.f});
    QVERIFY(std::abs(scalar(bboxIoU(a, b)) - 1.0 / 7) < 1e-6);
    QVERIFY(std::abs(scalar(bboxIoU(a, b, false, true)) - (1.0 / 7 - 2.0 / 18)) < 1e-6);
    // Same boxes as xywh give the same IoU.
    QVERIFY(
        std::abs(scalar(bboxIoU(at::tensor({1.f, 1.f, 2.f, 2.f}), at::tensor({2.f, 2.f, 2.f, 2.f}), true)) -
                 1.0 / 7) < 1e-6);
    // [0,0,4,2] (4 x 2) vs [0,0,2,4] (2 x 4): intersection 2 x 2 = 4, union 8 + 8 - 4 = 12, IoU 1/3.
    // Centres (2,1), (1,2): rho^2 = 1 + 1 = 2; enclosing 4 x 4: c^2 = 32.
    // v = 4/pi^2 (atan(2/4) - atan(4/2))^2 = 0.167826; alpha = v / (v - 1/3 + 1) = 0.201113;
    // CIoU = 1/3 - (2/32 + v * alpha) = 0.237081.
    const double v = 4 / (M_PI * M_PI) * std::pow(std::atan(0.5) - std::atan(2.0), 2);
    const double ciou = 1.0 / 3 - (2.0 / 32 + v * v / (v - 1.0 / 3 + 1));
    QVERIFY(std::abs(ciou - 0.237081) < 1e-6);
    const at::Tensor c = at::tensor({0.f, 0.f, 4.f, 2.f}), d = at::tensor({0.f, 0.f, 2.f, 4.f});
    QVERIFY(std::abs(scalar(bboxIoU(c, d)) - 1.0 / 3) < 1e-6);
    QVERIFY(std::abs(scalar(bboxIoU(c, d, false, true)) - ciou) < 1e-5);
    // Disjoint boxes: IoU 0; CIoU negative (pure distance penalty).
    const at::Tensor e = at::tensor({10.f, 10.f, 12.f, 12.f});
    QCOMPARE(scalar(bboxIoU(a, e)), 0.0);
    QVERIFY(scalar(bboxIoU(a, e, false, true)) < 0);
    // Broadcasting: [2,4] vs [4] -> [2,1]; identical boxes give 1.
    QCOMPARE(bboxIoU(at::stack({a, b}), a).sizes().vec(), (std::vector<int64_t>{2, 1}));
    QVERIFY(std::abs(scalar(bboxIoU(b, b, false, true)) - 1.0) < 1e-6);
  }

  void dflArithmetic() {
    // Anchor (5,5), box [2,3,9,20]: left 3, top 2, right 4, bottom 15 -> clamped to 15 - 0.01 = 14.99.
    const at::Tensor d = bbox2dist(at::tensor({5.f, 5.f}), at::tensor({2.f, 3.f, 9.f, 20.f}), 15);
    QVERIFY(d.allclose(at::tensor({3.f, 2.f, 4.f, 14.99f}), 0, 1e-5));
    // Uniform logits: every bin has CE log(16), whatever the target: loss = log 16 = 2.772589.
    QVERIFY(std::abs(scalar(dflLoss(at::zeros({4, 16}), at::full({1, 4}, 6.3f))) - std::log(16.0)) < 1e-5);
    // p(bin 3) = 0.6, p(bin 4) = 0.2, others 0.2/14. Target 3.25 lies between bins 3 and 4 with weights
    // 0.75 (bin 3) and 0.25 (bin 4): loss = 0.75 * -ln 0.6 + 0.25 * -ln 0.2 = 0.383119 + 0.402359 = 0.785478.
    at::Tensor p = at::full({16}, 0.2 / 14);
    p[3] = 0.6;
    p[4] = 0.2;
    const at::Tensor logits = p.log().view({1, 16}).expand({4, 16});
    const double expected = 0.75 * -std::log(0.6) + 0.25 * -std::log(0.2);
    QVERIFY(std::abs(expected - 0.785478) < 1e-6);
    QVERIFY(std::abs(scalar(dflLoss(logits, at::full({1, 4}, 3.25f))) - expected) < 1e-5);
  }

  void assignerPicksCentreAnchorsAndTopk() {
    // 64 x 64 image, 8 x 8 anchors at stride 8 (centres 4, 12, ..., 60).
    // GT 0: [0,0,24,24] class 2 contains the 9 anchors with centres in {4,12,20}^2.
    // GT 1: [40,40,64,64] class 0 contains the 9 anchors with centres in {44,52,60}^2.
    // Every anchor predicts a 24 x 24 box around itself with score 0.5 for all classes; the anchors at
    // (12,12) and (52,52) predict their GT exactly (CIoU 1), so they are those GTs' best anchors.
    const at::Tensor anchors = gridAnchors(8, 8);
    const at::Tensor pd_boxes = at::cat({anchors - 12, anchors + 12}, -1).unsqueeze(0);
    const at::Tensor pd_scores = at::full({1, 64, 3}, 0.5);
    const at::Tensor gt_boxes = at::tensor({0.f, 0.f, 24.f, 24.f, 40.f, 40.f, 64.f, 64.f}).view({1, 2, 4});
    const at::Tensor gt_labels = at::tensor({2.f, 0.f}).view({1, 2, 1});
    const at::Tensor mask = at::ones({1, 2, 1});
    const Assignment as = TaskAlignedAssigner({10, 3, 0.5, 6.0, 1e-9, 0, 0, 0})(pd_scores, pd_boxes, anchors,
                                                                                gt_labels, gt_boxes, mask);
    // topk 10 >= 9 candidates: all 18 in-box anchors are positives, everything else is background.
    QCOMPARE(as.fg_mask.sum().item<int64_t>(), int64_t(18));
    QVERIFY(as.fg_mask[0][anchorAt(20, 20)].item<bool>());
    QVERIFY(!as.fg_mask[0][anchorAt(28, 28)].item<bool>());
    QCOMPARE(as.labels[0][anchorAt(4, 20)].item<int64_t>(), int64_t(2));
    QCOMPARE(as.labels[0][anchorAt(60, 44)].item<int64_t>(), int64_t(0));
    QVERIFY(as.bboxes[0][anchorAt(60, 44)].equal(at::tensor({40.f, 40.f, 64.f, 64.f})));
    // Best anchor: normalised metric = align * max IoU / max align = 1 (IoU 1), on its GT's class only.
    QVERIFY(std::abs(as.scores[0][anchorAt(12, 12)][2].item<double>() - 1.0) < 1e-6);
    QCOMPARE(as.scores[0][anchorAt(12, 12)][0].item<double>(), 0.0);
    const double other = as.scores[0][anchorAt(4, 4)][2].item<double>();
    QVERIFY(other > 0 && other < 1);
    QCOMPARE(as.scores[0][anchorAt(28, 28)].sum().item<double>(), 0.0);
    // With topk 4, each GT keeps its 4 best-aligned anchors, the exact one among them.
    const Assignment a4 = TaskAlignedAssigner({4, 3, 0.5, 6.0, 1e-9, 0, 0, 0})(pd_scores, pd_boxes, anchors,
                                                                               gt_labels, gt_boxes, mask);
    QCOMPARE(a4.fg_mask.sum().item<int64_t>(), int64_t(8));
    QVERIFY(a4.fg_mask[0][anchorAt(52, 52)].item<bool>());
  }

  void assignerResolvesContestedAnchorsByOverlap() {
    // GT A [0,0,32,32] class 1 and GT B [8,8,40,40] class 2. Every anchor predicts exactly B's box, so B's
    // CIoU is 1 and A's is lower (IoU 576/1472 = 0.39). A's candidates: centres {4..28}^2 (16); B's:
    // {12..36}^2 (16); with topk 16 all are positives; the 9 shared ones ({12,20,28}^2) go to B.
    // A keeps 16 - 9 = 7 anchors, B 16: 23 positives.
    const at::Tensor anchors = gridAnchors(8, 8);
    const at::Tensor pd_boxes = at::tensor({8.f, 8.f, 40.f, 40.f}).view({1, 1, 4}).expand({1, 64, 4});
    const at::Tensor pd_scores = at::full({1, 64, 3}, 0.5);
    const at::Tensor gt_boxes = at::tensor({0.f, 0.f, 32.f, 32.f, 8.f, 8.f, 40.f, 40.f}).view({1, 2, 4});
    const at::Tensor gt_labels = at::tensor({1.f, 2.f}).view({1, 2, 1});
    const Assignment as = TaskAlignedAssigner({16, 3, 0.5, 6.0, 1e-9, 0, 0, 0})(
        pd_scores, pd_boxes, anchors, gt_labels, gt_boxes, at::ones({1, 2, 1}));
    QCOMPARE(as.fg_mask.sum().item<int64_t>(), int64_t(23));
    QCOMPARE((as.labels.eq(2).logical_and(as.fg_mask)).sum().item<int64_t>(), int64_t(16));
    QCOMPARE((as.labels.eq(1).logical_and(as.fg_mask)).sum().item<int64_t>(), int64_t(7));
    QCOMPARE(as.labels[0][anchorAt(20, 20)].item<int64_t>(), int64_t(2));
    QCOMPARE(as.labels[0][anchorAt(4, 20)].item<int64_t>(), int64_t(1));
    QCOMPARE(as.gt_index[0][anchorAt(36, 12)].item<int64_t>(), int64_t(1));
  }

  void assignerSmallBoxRuleWidensCandidates() {
    // 8.4's rule. Anchors of an 8 x 8 grid at stride 8 have centres 4, 12, ..., 60. Two images, one GT each,
    // every anchor predicting that GT exactly (CIoU 1, so every candidate outranks every other anchor).
    // Image 0: GT [5,5,9,9] (4 x 4 px) contains no centre: without the rule no candidate, no positive. With
    // it (sides under 8 px count as 16 px about the centre (7,7): [-1,-1,15,15]) it contains the centres
    // {4,12}^2: 4 candidates, all positives (topk 10).
    // Image 1: GT [24,24,32,40] is 8 px wide (not under 8: unchanged) and 16 high: centres x = 28, y in
    // {28,36}: 2 positives either way.
    const at::Tensor anchors = gridAnchors(8, 8);
    const at::Tensor gt_boxes = at::tensor({5.f, 5.f, 9.f, 9.f, 24.f, 24.f, 32.f, 40.f}).view({2, 1, 4});
    const at::Tensor pd_boxes = gt_boxes.expand({2, 64, 4});
    const at::Tensor pd_scores = at::full({2, 64, 2}, 0.5);
    const at::Tensor gt_labels = at::tensor({0.f, 1.f}).view({2, 1, 1});
    const at::Tensor mask = at::ones({2, 1, 1});
    TalOptions o{10, 2, 0.5, 6.0, 1e-9, 0, 0, 0};
    const Assignment off = TaskAlignedAssigner(o)(pd_scores, pd_boxes, anchors, gt_labels, gt_boxes, mask);
    QCOMPARE(off.fg_mask[0].sum().item<int64_t>(), int64_t(0));
    QCOMPARE(off.fg_mask[1].sum().item<int64_t>(), int64_t(2));
    o.small_side = 8;
    o.small_side_to = 16;
    const Assignment on = TaskAlignedAssigner(o)(pd_scores, pd_boxes, anchors, gt_labels, gt_boxes, mask);
    QCOMPARE(on.fg_mask[0].sum().item<int64_t>(), int64_t(4));
    QCOMPARE(on.fg_mask[1].sum().item<int64_t>(), int64_t(2));
    QVERIFY(on.fg_mask[1][anchorAt(28, 36)].item<bool>());
    for (const auto& [x, y] : std::vector<std::pair<double, double>>{{4, 4}, {12, 4}, {4, 12}, {12, 12}}) {
      QVERIFY(on.fg_mask[0][anchorAt(x, y)].item<bool>());
      // The target is the real box, not the widened one.
      QVERIFY(on.bboxes[0][anchorAt(x, y)].equal(at::tensor({5.f, 5.f, 9.f, 9.f})));
    }
    // Only sides under 8 widen: [0,0,4,20] becomes [-6,0,10,20] (width 4 -> 16 about x = 2, height kept).
    QVERIFY(TaskAlignedAssigner::widenSmallBoxes(at::tensor({0.f, 0.f, 4.f, 20.f}), 8, 16)
                .equal(at::tensor({-6.f, 0.f, 10.f, 20.f})));
  }

  void assignerSecondTopkKeepsBestAlignedAnchor() {
    // The one-to-one branch's rule on assignerPicksCentreAnchorsAndTopk's case: with topk 7 then topk2 1,
    // each GT keeps only its best-aligned anchor, the one predicting it exactly: (12,12) and (52,52). Their
    // soft score is the GT's best CIoU, 1.
    const at::Tensor anchors = gridAnchors(8, 8);
    const at::Tensor pd_boxes = at::cat({anchors - 12, anchors + 12}, -1).unsqueeze(0);
    const at::Tensor pd_scores = at::full({1, 64, 3}, 0.5);
    const at::Tensor gt_boxes = at::tensor({0.f, 0.f, 24.f, 24.f, 40.f, 40.f, 64.f, 64.f}).view({1, 2, 4});
    const at::Tensor gt_labels = at::tensor({2.f, 0.f}).view({1, 2, 1});
    const Assignment as = TaskAlignedAssigner({7, 3, 0.5, 6.0, 1e-9, 1, 0, 0})(
        pd_scores, pd_boxes, anchors, gt_labels, gt_boxes, at::ones({1, 2, 1}));
    QCOMPARE(as.fg_mask.sum().item<int64_t>(), int64_t(2));
    QVERIFY(as.fg_mask[0][anchorAt(12, 12)].item<bool>());
    QVERIFY(as.fg_mask[0][anchorAt(52, 52)].item<bool>());
    QCOMPARE(as.gt_index[0][anchorAt(52, 52)].item<int64_t>(), int64_t(1));
    QVERIFY(std::abs(as.scores[0][anchorAt(12, 12)][2].item<double>() - 1.0) < 1e-6);
  }

  void padTargetsGroupsByImage() {
    // Rows out of image order; image 1 has none. Boxes scale by (w, h) = (100, 50), then xywh -> xyxy.
    const at::Tensor t = at::tensor({2.f, 1.f, 0.5f, 0.5f, 0.2f, 0.2f,  //
                                     0.f, 0.f, 0.1f, 0.2f, 0.2f, 0.4f,  //
                                     2.f, 3.f, 0.9f, 0.9f, 0.2f, 0.2f})
                             .view({-1, 6});
    const PaddedTargets p = padTargets(t, 3, 4, 100, 50);
    QCOMPARE(p.bboxes.sizes().vec(), (std::vector<int64_t>{3, 2, 4}));
    QVERIFY(p.bboxes[0][0].allclose(at::tensor({0.f, 0.f, 20.f, 20.f})));
    QVERIFY(p.bboxes[2][1].allclose(at::tensor({80.f, 40.f, 100.f, 50.f})));
    QCOMPARE(p.labels[2][1][0].item<float>(), 3.f);
    QCOMPARE(p.mask.sum().item<float>(), 3.f);
    QCOMPARE(p.mask[1].sum().item<float>(), 0.f);
    QVERIFY_EXCEPTION_THROWN(padTargets(t, 2, 4, 100, 50), ywb::Error);  // image index 2 with batch 2
    QVERIFY_EXCEPTION_THROWN(padTargets(t, 3, 3, 100, 50), ywb::Error);  // class 3 with nc 3
  }

  void emptyTargetsGiveFiniteGradients() {
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 3);
    m->train();
    const DetectionLoss loss(ModelLoss(*m).options());  // the model's loss, as the trainer's
    const LossResult r = loss(m->forward(at::rand({2, 3, 64, 64})), at::zeros({0, 6}));
    // No positives: box and DFL are exactly 0; class BCE pushes every logit to 0 (background).
    QCOMPARE(r.items[0].item<double>(), 0.0);
    QCOMPARE(r.items[2].item<double>(), 0.0);
    QVERIFY(r.items[1].item<double>() > 0);
    QVERIFY(std::abs(r.total.item<double>() - r.items.sum().item<double>() * 2) <
            1e-4 * r.total.item<double>());
    r.total.backward();
    bool any_nonzero = false;
    for (const auto& p : m->parameters()) {
      if (!p.grad().defined()) continue;
      QVERIFY(at::isfinite(p.grad()).all().item<bool>());
      any_nonzero = any_nonzero || p.grad().abs().sum().item<double>() > 0;
    }
    QVERIFY(any_nonzero);
  }

  void crowdedAndBorderBoxes() {
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 5);
    m->train();
    std::vector<float> rows;
    for (int i = 0; i < 40; ++i)  // 40 overlapping boxes in image 0
      rows.insert(rows.end(), {0.f, float(i % 5), 0.3f + 0.01f * i, 0.5f, 0.3f, 0.2f});
    // Boxes touching every border of image 1, a full-image box and a tiny one.
    for (const auto& b : std::vector<std::array<float, 4>>{{0.02f, 0.5f, 0.04f, 0.3f},
                                                           {0.98f, 0.5f, 0.04f, 0.3f},
                                                           {0.5f, 0.01f, 0.5f, 0.02f},
                                                           {0.5f, 0.5f, 1.f, 1.f},
                                                           {0.5f, 0.5f, 0.005f, 0.005f}})
      rows.insert(rows.end(), {1.f, 2.f, b[0], b[1], b[2], b[3]});
    const auto feats = m->forward(at::rand({2, 3, 96, 128}));
    const at::Tensor targets = at::tensor(rows).view({-1, 6});
    const LossResult r = DetectionLoss(ModelLoss(*m).options())(feats, targets);
    QVERIFY(at::isfinite(r.items).all().item<bool>());
    // The training step's path (rows grouped on the host by the loader, no read-back) is the same loss, bit
    // for bit, as the rows path the parity fixtures check.
    const LossResult g = DetectionLoss(ModelLoss(*m).options())(feats, ywb::groupTargets(targets, 2, 0));
    QVERIFY(at::equal(g.items, r.items));
    QVERIFY(at::equal(g.total, r.total));
    QVERIFY(r.items[0].item<double>() > 0 && r.items[2].item<double>() > 0);
    r.total.backward();
    for (const auto& p : m->parameters())
      if (p.grad().defined()) QVERIFY(at::isfinite(p.grad()).all().item<bool>());
  }

  void lossFallsWhenOverfittingOneBatch() {
    torch::manual_seed(1);
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 2);
    m->train();
    const auto [images, targets] = syntheticBatch(2, 96);
    const DetectionLoss loss(ModelLoss(*m).options());  // the model's loss, as the trainer's
    std::vector<at::Tensor> params;
    for (const auto& p : m->parameters())
      if (p.requires_grad()) params.push_back(p);
    torch::optim::Adam opt(params, torch::optim::AdamOptions(2e-3));
    double first = 0, last = 0;
    for (int step = 0; step < 40; ++step) {
      const LossResult r = loss(m->forward(images), targets);
      opt.zero_grad();
      r.total.backward();
      opt.step();
      const double v = r.items.sum().item<double>();
      QVERIFY(std::isfinite(v));
      if (step == 0) first = v;
      last = v;
    }
    // Fitting one batch of two images must cut the loss substantially (observed ~ x0.3 after 40 Adam steps).
    QVERIFY2(last < 0.6 * first, (std::to_string(first) + " -> " + std::to_string(last)).c_str());
  }
};

QTEST_GUILESS_MAIN(TestLoss)
#include "test_loss.moc"
