// DetectionMetrics: COCO-exact mAP from YOLO boxes, Ultralytics-style P/R/F1, confusion matrix, curves.
#include <QtTest>
#include <cmath>

#include "ywb/coco_eval.h"
#include "ywb/error.h"
#include "ywb/metrics.h"

using namespace ywb;

namespace {

GtBox g(float x1, float y1, float x2, float y2, int cls) {
  return {x1, y1, x2, y2, cls};
}
DetBox d(float x1, float y1, float x2, float y2, float score, int cls) {
  return {x1, y1, x2, y2, score, cls};
}

}  // namespace

class TestEvalMetrics : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void perfectDetector() {
    // Every box found exactly, one per class and image: all 12 COCO numbers that are defined are 1
    // (boxes 50x50 = 2500: medium only, so APs/APl/ARs/ARl are undefined = -1), P = R = 1.
    DetectionMetrics m(3);
    m.addImage({g(0, 0, 50, 50, 0), g(100, 100, 150, 150, 1)},
               {d(0, 0, 50, 50, 0.9f, 0), d(100, 100, 150, 150, 0.8f, 1)});
    m.addImage({g(10, 10, 60, 60, 2)}, {d(10, 10, 60, 60, 0.7f, 2)});
    const DetectionResults r = m.compute();
    const std::array<double, 12> want{1, 1, 1, -1, 1, -1, 1, 1, 1, -1, 1, -1};
    for (size_t i = 0; i < 12; ++i) QVERIFY2(std::fabs(r.coco[i] - want[i]) < 1e-12, cocoStatNames()[i]);
    QCOMPARE(r.map, r.coco[0]);
    QVERIFY(std::fabs(r.precision - 1) < 1e-9);
    QVERIFY(std::fabs(r.recall - 1) < 1e-9);
    QVERIFY(r.best_conf < 0.7);  // below the lowest score every class is fully recalled
    QCOMPARE(r.images, int64_t(2));
    QCOMPARE(r.instances, int64_t(3));
    QCOMPARE(r.per_class.size(), size_t(3));
    for (int c = 0; c < 3; ++c) {
      QCOMPARE(r.confusion.at(c, c), int64_t(1));
      QVERIFY(std::fabs(r.per_class[size_t(c)].ap - 1) < 1e-12);
    }
    QCOMPARE(r.confusion.at(3, 3), int64_t(0));
    QVERIFY(std::fabs(r.fitness() - 1) < 1e-12);
    QCOMPARE(r.per_class[0].images, int64_t(1));
    // The table: header, "all", one row per class with boxes, the COCO-exact note.
    const QStringList t =
        QString::fromStdString(metricsTable(r, {"circle", "square"})).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(t.size(), 6);
    QVERIFY(t[0].contains("mAP50-95)"));
    QCOMPARE(t[1].simplified(), QString("all 2 3 1 1 1 1"));
    QCOMPARE(t[2].simplified(), QString("circle 1 1 1 1 1 1"));
    QCOMPARE(t[4].simplified(), QString("2 1 1 1 1 1 1"));  // unnamed class prints its index
    QVERIFY(t[5].contains("COCO-exact"));
    const std::string j = detectionResultsJson(r, {}, true);
    QVERIFY(j.find("\"mAP50-95\"") != std::string::npos && j.find("\"f1_mean\"") != std::string::npos);
  }

  // The same scene as TestEvalCoco::halfFoundAtIou075, fed as YOLO corner boxes: four 200x200 boxes, two
  // found at IoU exactly 0.75. AP = 6/10 * 51/101, AP50 = 51/101 (see that test's derivation); the PR curve
  // at IoU .50 is 1 for recall 0.00 .. 0.50 and 0 beyond.
  void halfFoundAtIou075() {
    DetectionMetrics m(2);
    m.addImage(
        {g(0, 0, 200, 200, 1), g(300, 0, 500, 200, 1), g(0, 300, 200, 500, 1), g(300, 300, 500, 500, 1)},
        {d(0, 0, 150, 200, 0.9f, 1), d(300, 300, 450, 500, 0.8f, 1)});
    const DetectionResults r = m.compute();
    QVERIFY(std::fabs(r.coco[0] - 306.0 / 1010) < 1e-12);
    QVERIFY(std::fabs(r.map50 - 51.0 / 101) < 1e-12);
    QCOMPARE(r.per_class[0].ap, -1.0);  // class 0 has no boxes
    QVERIFY(std::fabs(r.per_class[1].ap50 - 51.0 / 101) < 1e-12);
    QCOMPARE(r.per_class[1].num_gt, int64_t(4));
    QCOMPARE(r.curves.recall.size(), size_t(101));
    QVERIFY(r.curves.pr[0].empty());
    for (size_t i = 0; i < 101; ++i) QCOMPARE(r.curves.pr[1][i], i <= 50 ? 1.0 : 0.0);
    QCOMPARE(r.curves.pr_mean, r.curves.pr[1]);
    // At IoU .50 both detections are true positives: recall 0.5 at every confidence below 0.8.
    QVERIFY(std::fabs(r.recall - 0.5) < 1e-12);
  }

  // Ultralytics' P and R: one class, two boxes; a hit scored 0.9 and a miss scored 0.6.
  // Along the sorted matches recall = [0.5, 0.5] and precision = [1, 0.5]. Against confidence c:
  //   c > 0.9: nothing kept, R = 0, P = 1 (interp's left value), F1 = 0;
  //   0.6 < c < 0.9: R = 0.5, P interpolated linearly from 1 at 0.9 to 0.5 at 0.6: P = 1 - (0.9 - c) * 5/3;
  //   c <= 0.6: R = 0.5, P = 0.5.
  // F1 = 2PR/(P+R) peaks just below 0.9 and drops to 0 above it, so the 101-point box filter puts the best
  // confidence inside (0.8, 0.9); there R must be 0.5 and P must follow the line above.
  void precisionRecallAtBestF1() {
    DetectionMetrics m(1);
    m.addImage({g(0, 0, 100, 100, 0), g(200, 0, 300, 100, 0)},
               {d(0, 0, 100, 100, 0.9f, 0), d(500, 500, 600, 600, 0.6f, 0)});
    const DetectionResults r = m.compute();
    QVERIFY2(r.best_conf > 0.8 && r.best_conf < 0.9, qPrintable(QString::number(r.best_conf)));
    QVERIFY(std::fabs(r.recall - 0.5) < 1e-12);
    // Scores are floats: 0.9f and 0.6f are the interpolation's end points.
    const double c9 = double(0.9f), c6 = double(0.6f);
    const double p = 1 - (c9 - r.best_conf) / (c9 - c6) * 0.5;
    QVERIFY2(std::fabs(r.precision - p) < 1e-9, qPrintable(QString("%1 vs %2").arg(r.precision).arg(p)));
    QVERIFY(std::fabs(r.f1 - 2 * p * 0.5 / (p + 0.5)) < 1e-9);
    QCOMPARE(r.per_class[0].precision, r.precision);
    QCOMPARE(r.curves.confidence.size(), size_t(1000));
    QCOMPARE(r.curves.f1_mean.size(), size_t(1000));
    QCOMPARE(r.curves.recall_at[0].back(), 0.0);   // c = 1: nothing recalled
    QCOMPARE(r.curves.precision[0].front(), 0.5);  // c = 0: every detection kept
  }

  void confusionMatrixConventions() {
    // Rows = predicted, columns = true, index 3 = background (3 classes).
    DetectionMetrics m(3);
    m.addImage(
        {g(0, 0, 100, 100, 0), g(200, 0, 300, 100, 1), g(400, 0, 500, 100, 2)},
        {d(0, 0, 100, 100, 0.9f, 0),      // A found as class 0: (0, 0)
         d(5, 0, 100, 100, 0.85f, 0),     // a duplicate on A: A is taken by the IoU-1 detection -> (0, bg)
         d(200, 0, 300, 100, 0.8f, 0),    // B (class 1) called class 0: (0, 1)
         d(400, 0, 500, 100, 0.25f, 2),   // at the confidence threshold: dropped (needs > 0.25)
         d(600, 600, 700, 700, 0.7f, 1)}  // nothing there: (1, bg); C is then missed: (bg, 2)
    );
    m.addImage({}, {d(0, 0, 10, 10, 0.5f, 2)});  // background image with a detection: (2, bg)
    m.addImage({g(0, 0, 10, 10, 1)}, {});        // a box with no detection: (bg, 1)
    // Overlap 0.45 is not enough (needs IoU > 0.45): box 100x100, detection 45x100 inside it.
    m.addImage({g(0, 0, 100, 100, 2)}, {d(0, 0, 45, 100, 0.9f, 2)});  // (bg, 2) and (2, bg)
    const ConfusionMatrix& c = m.compute().confusion;
    QCOMPARE(c.num_classes, 3);
    QCOMPARE(c.counts.size(), size_t(16));
    std::vector<int64_t> want(16, 0);
    const auto set = [&](int p, int t, int64_t v) { want[size_t(p * 4 + t)] = v; };
    set(0, 0, 1);
    set(0, 3, 1);
    set(0, 1, 1);
    set(1, 3, 1);
    set(3, 2, 2);
    set(2, 3, 2);
    set(3, 1, 1);
    QCOMPARE(c.counts, want);
  }

  void mergeEqualsOneAccumulator() {
    const std::vector<std::vector<GtBox>> gts = {
        {g(0, 0, 40, 40, 0), g(50, 50, 90, 120, 1)}, {g(10, 10, 30, 30, 1)}, {}, {g(0, 0, 300, 200, 0)}};
    const std::vector<std::vector<DetBox>> dts = {{d(2, 1, 41, 40, 0.8f, 0), d(50, 55, 92, 118, 0.6f, 1)},
                                                  {d(12, 9, 30, 33, 0.7f, 1), d(0, 0, 5, 5, 0.3f, 0)},
                                                  {d(0, 0, 50, 50, 0.9f, 1)},
                                                  {d(0, 10, 280, 200, 0.5f, 0)}};
    DetectionMetrics all(2), a(2), b(2);
    for (size_t i = 0; i < gts.size(); ++i) {
      all.addImage(gts[i], dts[i]);
      (i < 2 ? a : b).addImage(gts[i], dts[i]);
    }
    a.merge(b);
    const DetectionResults x = all.compute(), y = a.compute();
    QCOMPARE(a.images(), int64_t(4));
    for (size_t i = 0; i < 12; ++i) QCOMPARE(x.coco[i], y.coco[i]);
    QCOMPARE(x.confusion.counts, y.confusion.counts);
    QCOMPARE(x.precision, y.precision);
    QVERIFY_EXCEPTION_THROWN(a.merge(DetectionMetrics(3)), Error);
  }

  void badBoxesAreCountedNotFatal() {
    DetectionMetrics m(2);
    m.addImage({g(0, 0, 10, 10, 5), g(0, 0, NAN, 10, 0), g(0, 0, 10, 10, 0)},
               {d(0, 0, 10, 10, 0.9f, -1), d(0, 0, 10, 10, 0.9f, 0)});
    const DetectionResults r = m.compute();
    QCOMPARE(r.skipped, int64_t(3));
    QCOMPARE(r.instances, int64_t(1));
    QVERIFY(std::fabs(r.map - 1) < 1e-12);
    QVERIFY(QString::fromStdString(metricsSummaryLine(r)).contains("COCO-exact"));
    QVERIFY_EXCEPTION_THROWN(DetectionMetrics(0), Error);
  }

  void emptyIsDefined() {
    DetectionMetrics m(4);
    DetectionResults r = m.compute();
    QCOMPARE(r.coco[0], -1.0);
    QCOMPARE(r.map, 0.0);
    QCOMPARE(r.precision, 0.0);
    m.addImage({}, {d(0, 0, 5, 5, 0.5f, 1)});
    r = m.compute();
    QCOMPARE(r.map50, 0.0);
    m.reset();
    QCOMPARE(m.images(), int64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestEvalMetrics)
#include "test_eval_metrics.moc"
