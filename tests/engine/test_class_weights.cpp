// `cls_pw` (Ultralytics 8.4): per-class weights from the training labels, w = (1 / count)^cls_pw divided by
// their mean, and the class BCE multiplied by them before its sum, in every branch of the loss. The weights
// are checked against fractions worked out by hand; the weighted loss against a closed form (no ground truth:
// each logit's BCE is softplus) and against its decomposition by class (one-hot weights give each class's
// share, computed by the same assignment); with no weights the loss takes its old path untouched.
#include <QtTest>
#include <cmath>

#include "loss/class_weights.h"
#include "loss/detection_loss.h"
#include "loss/end_to_end_loss.h"
#include "loss/model_loss.h"
#include "model/detection_model.h"
#include "ywb/error.h"

using namespace ywb::loss;

namespace {

// Random raw maps of a 4-class DFL head (4 x 16 + 4 = 68 channels) for a batch of two 64 x 64 images at
// strides 8, 16, 32.
std::vector<at::Tensor> randomMaps(uint64_t seed) {
  at::manual_seed(seed);
  return {at::randn({2, 68, 8, 8}), at::randn({2, 68, 4, 4}), at::randn({2, 68, 2, 2})};
}

DetectionLossOptions fourClasses() {
  DetectionLossOptions o;
  o.nc = 4;
  return o;
}

// Ground truth of classes 0, 1 and 3 (none of class 2) in both images: rows (image, class, cx, cy, w, h).
at::Tensor someTargets() {
  return at::tensor({0.f, 0.f, 0.5f, 0.5f, 0.5f, 0.4f, 0.f, 3.f, 0.25f, 0.3f,  0.3f,  0.3f,
                     1.f, 1.f, 0.6f, 0.4f, 0.4f, 0.6f, 1.f, 3.f, 0.3f,  0.75f, 0.25f, 0.2f})
      .view({4, 6});
}

bool near(double got, double want, double rel) {
  return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

}  // namespace

class TestClassWeights : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void weightsByHand() {
    // counts [1, 4, 0, 16], cls_pw 0.5: the 0 counts as 1, so (1/c)^0.5 = [1, 1/2, 1, 1/4]; their mean is
    // 2.75 / 4 = 11/16; divided by it: [16/11, 8/11, 16/11, 4/11] = [1.4545, 0.7273, 1.4545, 0.3636].
    const at::Tensor w = classWeights({1, 4, 0, 16}, 0.5);
    QCOMPARE(w.scalar_type(), at::kFloat);
    QCOMPARE(w.numel(), int64_t(4));
    QCOMPARE(w[0].item<float>(), float(16.0 / 11.0));
    QCOMPARE(w[1].item<float>(), float(8.0 / 11.0));
    QCOMPARE(w[2].item<float>(), float(16.0 / 11.0));
    QCOMPARE(w[3].item<float>(), float(4.0 / 11.0));
    // The log line rounds to 3 decimals, as Ultralytics prints them.
    QCOMPARE(classWeightsLine(w), std::string("Class weights: [1.455, 0.727, 1.455, 0.364]"));
    // cls_pw 1, counts [1, 3]: [1, 1/3] / (2/3) = [1.5, 0.5]. Equal counts: all 1.
    const at::Tensor w1 = classWeights({1, 3}, 1.0);
    QCOMPARE(w1[0].item<float>(), 1.5f);
    QCOMPARE(w1[1].item<float>(), 0.5f);
    QVERIFY(at::equal(classWeights({7, 7, 7}, 0.3), at::ones({3})));
    // Any counts: the weights average 1.
    QVERIFY(near(classWeights({3, 7, 11, 0, 100}, 0.3).mean().item<double>(), 1.0, 1e-6));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, classWeights({1, 2}, 0.0));  // 0 is "off": no weights at all
    QVERIFY_THROWS_EXCEPTION(ywb::Error, classWeights({1, 2}, 1.5));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, classWeights({}, 0.5));
  }

  void countsAreEveryTrainingLabel() {
    // Boxes of classes 0, 0, 3 in one image, 3 in another, a background: bincount with minlength 4.
    ywb::ScannedSplit s;
    s.images.resize(3);
    s.images[0].boxes = {
        {0, 0.5f, 0.5f, 0.1f, 0.1f}, {0, 0.2f, 0.2f, 0.1f, 0.1f}, {3, 0.7f, 0.7f, 0.1f, 0.1f}};
    s.images[1].boxes = {{3, 0.5f, 0.5f, 0.2f, 0.2f}};
    QCOMPARE(classCounts(s, 4), (std::vector<int64_t>{2, 0, 0, 2}));
    s.images[2].boxes = {{4, 0.5f, 0.5f, 0.2f, 0.2f}};  // outside nc: an error, not a silent drop
    QVERIFY_THROWS_EXCEPTION(ywb::Error, classCounts(s, 4));
  }

  void noGroundTruthIsWeightedSoftplus() {
    // No ground truth: every target score is 0 and their sum is clamped to 1, so the class term is
    // cls gain x sum over images, anchors and classes of w_class x BCE(x, 0) = w_class x softplus(x).
    const std::vector<at::Tensor> maps = randomMaps(3);
    DetectionLossOptions o = fourClasses();
    o.class_weights = at::tensor({2.0f, 0.5f, 1.0f, 0.25f});
    const LossResult r = DetectionLoss(o)(maps, at::zeros({0, 6}));
    double want = 0;
    for (const at::Tensor& m : maps) {
      const at::Tensor per_class = at::softplus(m.narrow(1, 64, 4).to(at::kDouble)).sum({0, 2, 3});  // [4]
      want += (per_class * o.class_weights.to(at::kDouble)).sum().item<double>();
    }
    QVERIFY2(near(r.items[1].item<double>(), 0.5 * want, 1e-5),
             qPrintable(QString("%1 vs %2").arg(r.items[1].item<double>()).arg(0.5 * want)));
  }

  void weightedLossIsTheWeightedSumOfEachClassShare() {
    // With ground truth the BCE is still a sum of per-class terms, each under its class's weight, and the
    // assignment does not see the weights. So the loss with weights w equals sum_c w_c x (the loss with the
    // one-hot weights e_c), each computed by the loss itself with the same maps and targets.
    const std::vector<at::Tensor> maps = randomMaps(5);
    const at::Tensor t = someTargets();
    const at::Tensor w = classWeights({1, 4, 0, 16}, 0.5);
    DetectionLossOptions o = fourClasses();
    o.class_weights = w;
    const LossResult weighted = DetectionLoss(o)(maps, t);
    double sum = 0;
    for (int64_t c = 0; c < 4; ++c) {
      DetectionLossOptions oc = fourClasses();
      oc.class_weights = at::zeros({4}).index_fill_(0, at::tensor({c}), 1.0);
      sum += double(w[c].item<float>()) * DetectionLoss(oc)(maps, t).items[1].item<double>();
    }
    QVERIFY2(near(weighted.items[1].item<double>(), sum, 1e-5),
             qPrintable(QString("%1 vs %2").arg(weighted.items[1].item<double>()).arg(sum)));
    // Box and DFL terms do not depend on the weights; the unweighted class term differs.
    const LossResult plain = DetectionLoss(fourClasses())(maps, t);
    QVERIFY(at::equal(weighted.items[0], plain.items[0]));
    QVERIFY(at::equal(weighted.items[2], plain.items[2]));
    QVERIFY(!at::equal(weighted.items[1], plain.items[1]));
    // Weights of 1 (equal counts) multiply each term by 1 before the same sum: the unweighted loss, bit for
    // bit. cls_pw 0 builds no weights at all (the path the parity fixtures check).
    o.class_weights = classWeights({5, 5, 5, 5}, 0.5);
    const LossResult ones = DetectionLoss(o)(maps, t);
    QVERIFY(at::equal(ones.items, plain.items));
    QVERIFY(at::equal(ones.total, plain.total));
    o.class_weights = at::ones({3});  // one weight per class, or a clear error
    QVERIFY_THROWS_EXCEPTION(ywb::Error, DetectionLoss{o});
  }

  void everyBranchOfModelLossIsWeighted() {
    // ModelLoss hands the weights to the one loss of a YOLOv8 head and to both branches of YOLO26's
    // end-to-end loss; without them (cls_pw 0) none is set.
    at::manual_seed(0);
    const at::Tensor x = at::rand({2, 3, 64, 64});
    const at::Tensor t = someTargets();
    const at::Tensor w = classWeights({1, 4, 0, 16}, 0.5);
    ywb::model::DetectionModel v8 = ywb::model::buildModel("yolov8n.yaml", 4);
    QVERIFY(!ModelLoss(*v8).options().class_weights.defined());
    QVERIFY(at::equal(ModelLoss(*v8, {}, true, w).options().class_weights, w));

    DetectionLossOptions o;
    o.nc = 4;
    o.reg_max = 1;
    o.class_weights = w;
    const EndToEndLoss e2e(o);
    QVERIFY(at::equal(e2e.one2many().options().class_weights, w));
    QVERIFY(at::equal(e2e.one2one().options().class_weights, w));
    ywb::model::DetectionModel y26 = ywb::model::buildModel("yolo26n.yaml", 4);
    y26->train();
    const ywb::model::HeadOutputs h = y26->forwardHeads(x);
    const LossResult weighted = ModelLoss(*y26, {}, true, w)(h, t, 0.8);
    const LossResult plain = ModelLoss(*y26)(h, t, 0.8);
    // The logged items (the one-to-one branch's): only the class term moves.
    QVERIFY(at::equal(weighted.items[0], plain.items[0]));
    QVERIFY(!at::equal(weighted.items[1], plain.items[1]));
    // The total is o2m x many + o2o x one, each branch weighted: as EndToEndLoss with the weights computes
    // it.
    QVERIFY(at::equal(weighted.total, e2e(h, t, 0.8).total));
    // Validation's items come from the same weighted loss (the trainer's validation uses the run's
    // ModelLoss).
    QVERIFY(at::equal(ModelLoss(*y26, {}, true, w).items(h, t), weighted.items));
  }
};

QTEST_GUILESS_MAIN(TestClassWeights)
#include "test_class_weights.moc"
