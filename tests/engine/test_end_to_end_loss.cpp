// Tests of YOLO26's end-to-end loss pieces on hand-built head maps: reg_max 1 (distances, the L1 term in
// DFL's slot), the one-to-one branch's single anchor per object, the o2m/o2o weighting of the total, and the
// O2mSchedule's weights (Ultralytics 8.4.52's, to the bit, from the loss fixtures' metadata), and ModelLoss,
// the one place that gives a model its loss.
#include <QtTest>
#include <cmath>

#include "loss/end_to_end_loss.h"
#include "loss/model_loss.h"
#include "loss/o2m_schedule.h"
#include "model/detection_model.h"
#include "ywb/error.h"

using namespace ywb::loss;

namespace {

// One level at stride 8 of a 64 x 32 image (W x H): an [1, 4+2, 4, 8] map. One GT, class 1, covering
// x 16..48, y 8..24 px (grid units 2..6, 1..3). Every anchor (gx + 0.5, gy + 0.5) predicts that box grown by
// half a cell on every side: distances l = ax - 2 + 0.5, t = ay - 1 + 0.5, r = 6 - ax + 0.5, b = 3 - ay + 0.5
// (grid units), i.e. the box 16..48 x 8..24 px grown by 4 px per side: 40 x 24 px about the same centre.
// Class logits 0.
std::vector<at::Tensor> grownBoxMaps() {
  const at::Tensor gx = (at::arange(8, at::kFloat) + 0.5).view({1, 8}).expand({4, 8});
  const at::Tensor gy = (at::arange(4, at::kFloat) + 0.5).view({4, 1}).expand({4, 8});
  const at::Tensor boxes = at::stack({gx - 2 + 0.5, gy - 1 + 0.5, 6 - gx + 0.5, 3 - gy + 0.5});  // [4,4,8]
  return {at::cat({boxes, at::zeros({2, 4, 8})}).unsqueeze(0)};
}

DetectionLossOptions yolo26Options() {
  DetectionLossOptions o;
  o.nc = 2;
  o.strides = {8};
  o.reg_max = 1;
  return o;
}

// The GT as a [1,6] row: image 0, class 1, centre (32,16) px and size 32 x 16 px, normalised by 64 x 32.
at::Tensor gtRow() {
  return at::tensor({0.f, 1.f, 0.5f, 0.5f, 0.5f, 0.5f}).view({1, 6});
}

bool near(double got, double want, double rel = 1e-5) {
  return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

}  // namespace

class TestEndToEndLoss : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void regMax1BoxAndL1HandValues() {
    // Candidates: the 8 anchors with centres strictly inside the GT (x in 20,28,36,44 px; y in 12,20), all
    // positives (topk 10). Each predicts the same 40 x 24 box about the GT's centre:
    //   IoU = (32*16) / (40*24) = 0.533333; centres equal (rho = 0); v = 4/pi^2 (atan(40/24) -
    //   atan(32/16))^2 = 0.00238872; alpha = v / (v - IoU + 1) = 0.00509261; CIoU c = IoU - v alpha =
    //   0.53332117.
    // Equal alignments, so every soft score is the best CIoU c; their sum 8c = 4.27 > 1.
    //   box = 7.5 * sum(c (1 - c)) / (8c) = 7.5 (1 - c) = 3.50009124.
    //   L1: every side is off by half a cell = 4 px; normalised: 4/64 (left, right), 4/32 (top, bottom); mean
    //   0.09375; times the gain 1.5: 0.140625.
    //   cls: logits 0 give BCE ln 2 per element whatever the target: 0.5 * (32 anchors x 2 classes) ln 2 /
    //   (8c).
    const double iou = 512.0 / 960.0;
    const double v = 4 / (M_PI * M_PI) * std::pow(std::atan(40.0 / 24) - std::atan(32.0 / 16), 2);
    const double c = iou - v * v / (v - iou + 1);
    QVERIFY(std::abs(c - 0.53332117) < 1e-8);
    const DetectionLoss loss(yolo26Options());
    const LossResult r = loss(grownBoxMaps(), gtRow());
    QVERIFY2(near(r.items[0].item<double>(), 7.5 * (1 - c)),
             std::to_string(r.items[0].item<double>()).c_str());
    QVERIFY(near(r.items[1].item<double>(), 0.5 * 64 * std::log(2.0) / (8 * c)));
    QVERIFY2(near(r.items[2].item<double>(), 0.140625), std::to_string(r.items[2].item<double>()).c_str());
    QVERIFY(near(r.total.item<double>(), r.items.sum().item<double>()));  // batch of 1
  }

  void oneToOneKeepsOneAnchorAndWeighsBranches() {
    // The one-to-one branch keeps one of the 8 (equally aligned) positives, soft score c; the sum of scores
    // c < 1 is clamped to 1, so each term is that anchor's alone:
    //   box = 7.5 (1 - c) c; L1 = 1.5 * 0.09375 c; cls = 0.5 * 64 ln 2 / 1.
    // The one-to-many branch is regMax1BoxAndL1HandValues' loss. Total = (o2m * many + o2o * one) * batch.
    const double iou = 512.0 / 960.0;
    const double v = 4 / (M_PI * M_PI) * std::pow(std::atan(40.0 / 24) - std::atan(32.0 / 16), 2);
    const double c = iou - v * v / (v - iou + 1);
    const EndToEndLoss loss(yolo26Options());
    const ywb::model::HeadOutputs maps{grownBoxMaps(), grownBoxMaps()};
    const EndToEndLossResult r = loss(maps, gtRow(), 0.8);
    QVERIFY2(near(r.items[0].item<double>(), 7.5 * (1 - c) * c),
             std::to_string(r.items[0].item<double>()).c_str());
    QVERIFY(near(r.items[1].item<double>(), 0.5 * 64 * std::log(2.0)));
    QVERIFY(near(r.items[2].item<double>(), 1.5 * 0.09375 * c));
    QVERIFY(near(r.one2many_items[0].item<double>(), 7.5 * (1 - c)));
    QVERIFY(near(r.one2many_items[2].item<double>(), 0.140625));
    const double want =
        0.8 * r.one2many_items.sum().item<double>() + (1 - 0.8) * r.items.sum().item<double>();
    QVERIFY(near(r.total.item<double>(), want, 1e-6));
    // Weight 0.1 (the last epoch): o2o 0.9.
    const EndToEndLossResult last = loss(maps, gtRow(), 0.1);
    QVERIFY(near(last.total.item<double>(),
                 0.1 * r.one2many_items.sum().item<double>() + 0.9 * r.items.sum().item<double>(), 1e-6));
  }

  void emptyTargetsAndBadMaps() {
    // No GT: both branches' box and L1 terms are exactly 0 and the total still has a gradient.
    std::vector<at::Tensor> many = grownBoxMaps(), one = grownBoxMaps();
    many[0].requires_grad_(true);
    one[0].requires_grad_(true);
    const EndToEndLoss loss(yolo26Options());
    const EndToEndLossResult r = loss({many, one}, at::zeros({0, 6}), 0.8);
    QCOMPARE(r.items[0].item<double>(), 0.0);
    QCOMPARE(r.items[2].item<double>(), 0.0);
    r.total.backward();
    QVERIFY(at::isfinite(many[0].grad()).all().item<bool>());
    QVERIFY(one[0].grad().abs().sum().item<double>() > 0);
    // Maps of a DFL head (4*16+nc channels) given to a reg_max 1 loss, or no one-to-one maps: a clear error.
    const DetectionLoss plain(yolo26Options());
    QVERIFY_EXCEPTION_THROWN(plain({at::zeros({1, 66, 4, 8})}, gtRow()), ywb::Error);
    QVERIFY_EXCEPTION_THROWN(loss({grownBoxMaps(), {}}, gtRow(), 0.8), ywb::Error);
  }

  // ModelLoss, what the trainer, validation and `bench model` take: a YOLO26 model gets the end-to-end loss
  // with its nc, strides and reg_max 1, whose logged items (training's and validation's) are the one-to-one
  // branch's; a YOLOv8 model the plain loss with DFL's 16 bins. The same numbers, bit for bit, as the losses
  // built here by hand from the model's shape.
  void modelLossIsTheModelsOwn() {
    at::manual_seed(0);
    const at::Tensor x = at::rand({2, 3, 64, 64});
    // Image 0: a 32 x 16 px box of class 2; image 1: a 4 x 4 px one (under the small-box rule's 8 px).
    const at::Tensor t =
        at::tensor({0.f, 2.f, 0.5f, 0.5f, 0.5f, 0.25f, 1.f, 0.f, 0.3f, 0.6f, 0.0625f, 0.0625f}).view({2, 6});
    ywb::model::DetectionModel y26 = ywb::model::buildModel("yolo26n.yaml", 3);
    y26->train();
    const ywb::model::HeadOutputs h = y26->forwardHeads(x);
    const ModelLoss loss(*y26, {7.0, 0.6, 1.2});
    QVERIFY(loss.endToEnd());
    QCOMPARE(loss.options().nc, int64_t(3));
    QCOMPARE(loss.options().reg_max, int64_t(1));
    QCOMPARE(loss.options().strides, (std::vector<int64_t>{8, 16, 32}));
    QCOMPARE(loss.options().gains.cls, 0.6);
    QVERIFY(loss.options().small_box_rule);
    DetectionLossOptions o;
    o.nc = 3;
    o.reg_max = 1;
    o.gains = {7.0, 0.6, 1.2};
    const EndToEndLossResult want = EndToEndLoss(o)(h, t, 0.8);
    const LossResult got = loss(h, t, 0.8);
    QVERIFY(at::equal(got.total, want.total));
    QVERIFY(at::equal(got.items, want.items));
    QVERIFY(!at::equal(want.items, want.one2many_items));  // the branches differ: the items say which
    // Validation's items: the one-to-one branch's alone, without its one-to-many maps.
    QVERIFY(at::equal(loss.items({{}, h.one2one}, t), want.items));

    ywb::model::DetectionModel v8 = ywb::model::buildModel("yolov8n.yaml", 3);
    v8->train();
    const ywb::model::HeadOutputs h8 = v8->forwardHeads(x);
    QVERIFY(h8.one2one.empty());
    const ModelLoss plain(*v8, {}, /*small_box_rule=*/false);
    QVERIFY(!plain.endToEnd());
    QCOMPARE(plain.options().reg_max, int64_t(16));
    DetectionLossOptions o8;
    o8.nc = 3;
    o8.small_box_rule = false;
    const LossResult want8 = DetectionLoss(o8)(h8.one2many, t);
    QVERIFY(at::equal(plain(h8, t, 0.8).total, want8.total));
    QVERIFY(at::equal(plain.items(h8, t), want8.items));
    // The rule follows the modules' release: 8.3 weights are validated as 8.3 computed their losses.
    QVERIFY(smallBoxRuleOf(*v8));
    QVERIFY(!smallBoxRuleOf(*ywb::model::buildModel("yolov8n.yaml", 3, "8.3")));
    // Training: off only in a replay of 8.3.253's run (ultralytics_stream), and never for YOLO26, which only
    // 8.4 trains, always with the rule (it was off in a YOLO26 replay before round 3 session 14).
    QVERIFY(smallBoxRuleForTraining(*v8, /*replays_83=*/false));
    QVERIFY(!smallBoxRuleForTraining(*v8, /*replays_83=*/true));
    QVERIFY(smallBoxRuleForTraining(*y26, /*replays_83=*/false));
    QVERIFY(smallBoxRuleForTraining(*y26, /*replays_83=*/true));
    QVERIFY_EXCEPTION_THROWN(loss.items({h.one2many, {}}, t), ywb::Error);
  }

  void scheduleIsUltralyticsToTheBit() {
    // Fixture metadata (../shared/fixtures/ultralytics84/loss-yolo26n-*): at epoch 0 of 30 o2m 0.8, o2o
    // 0.19999999999999996 (1 - 0.8 in doubles); at epoch 17 of 30 o2m 0.3896551724137932, o2o
    // 0.6103448275862068.
    O2mSchedule s(30);
    QCOMPARE(s.o2m(), 0.8);
    QCOMPARE(s.o2o(), 0.19999999999999996);
    for (int e = 0; e < 17; ++e) s.update();
    QCOMPARE(s.epoch(), 17);
    QCOMPARE(s.o2m(), 0.3896551724137932);
    QCOMPARE(s.o2o(), 0.6103448275862068);
    // Resuming at epoch 17 gives the uninterrupted run's weights, bit for bit.
    const O2mSchedule resumed(30, 17);
    QCOMPARE(resumed.o2m(), s.o2m());
    QCOMPARE(resumed.o2o(), s.o2o());
    // The last epoch (29 of 30) trains at 0.1 / 0.9; past it the weight stays 0.1.
    for (int e = 17; e < 29; ++e) s.update();
    QCOMPARE(s.o2m(), 0.1);
    QCOMPARE(s.o2o(), 0.9);
    QCOMPARE(O2mSchedule::o2mAt(40, 30), 0.1);
    QCOMPARE(O2mSchedule(1).o2m(), 0.8);  // a one-epoch run: no division by zero
    QVERIFY_EXCEPTION_THROWN(O2mSchedule(0), ywb::Error);
  }
};

QTEST_GUILESS_MAIN(TestEndToEndLoss)
#include "test_end_to_end_loss.moc"
