// COCO-exact evaluation: the shared pycocotools fixtures, hand-derived cases, file errors, the CLI verb.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "ywb/coco_eval.h"
#include "ywb/error.h"

using namespace ywb;

namespace {

const QString kFixtures = QString(YW_SHARED_DIR) + "/fixtures/coco-eval";

CocoAnnotation box(int64_t id, int64_t img, int64_t cat, double x, double y, double w, double h,
                   bool crowd = false) {
  CocoAnnotation a;
  a.id = id;
  a.image_id = img;
  a.category_id = cat;
  a.x = x, a.y = y, a.w = w, a.h = h;
  a.area = w * h;
  a.iscrowd = crowd;
  return a;
}

CocoDetection det(int64_t img, int64_t cat, double x, double y, double w, double h, double score) {
  return {img, cat, x, y, w, h, score};
}

CocoGroundTruth truth(std::vector<int64_t> images, std::vector<int64_t> cats,
                      std::vector<CocoAnnotation> anns) {
  CocoGroundTruth gt;
  gt.image_ids = std::move(images);
  for (int64_t c : cats) gt.categories.push_back({c, "c" + std::to_string(c)});
  gt.annotations = std::move(anns);
  return gt;
}

void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

}  // namespace

class TestEvalCoco : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Every fixture folder: the 12 numbers pycocotools printed (expected.json) within its tolerance.
  void fixturesMatchPycocotools() {
    const QStringList dirs = QDir(kFixtures).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QVERIFY2(dirs.size() >= 2, qPrintable("fixtures missing under " + kFixtures));
    for (const QString& name : dirs) {
      const QString dir = kFixtures + "/" + name;
      QFile f(dir + "/expected.json");
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
      const QJsonArray stats = expected["stats"].toArray();
      const double tol = expected["tolerance"].toDouble(1e-6);
      QCOMPARE(stats.size(), 12);
      const CocoStats s = evaluateCocoFiles((dir + "/ground_truth.json").toStdString(),
                                            (dir + "/detections.json").toStdString());
      for (int i = 0; i < 12; ++i) {
        const double want = stats[i].toDouble();
        QVERIFY2(std::fabs(s.stats[size_t(i)] - want) <= tol,
                 qPrintable(QString("%1 %2: got %3, pycocotools %4")
                                .arg(name, cocoStatNames()[size_t(i)])
                                .arg(s.stats[size_t(i)], 0, 'g', 17)
                                .arg(want, 0, 'g', 17)));
      }
    }
  }

  void fixtureCountsAndPerCategory() {
    // README: coco128-synthetic has 939 boxes (10 crowd) and 1,061 detections; padilla-100 830 boxes, 734
    // dets.
    CocoStats s = evaluateCocoFiles((kFixtures + "/coco128-synthetic/ground_truth.json").toStdString(),
                                    (kFixtures + "/coco128-synthetic/detections.json").toStdString());
    QCOMPARE(s.num_gt + s.skipped_gt, int64_t(939));
    QCOMPARE(s.num_crowd, int64_t(10));
    QCOMPARE(s.num_dt + s.skipped_dt, int64_t(1061));
    // Invariant: the overall AP is the mean of the per-category APs that are defined (same cells averaged,
    // each category contributes T*R of them).
    double sum = 0;
    int n = 0;
    for (const auto& c : s.per_category) {
      if (c.ap > -1) sum += c.ap, ++n;
    }
    QVERIFY(n > 0);
    QVERIFY(std::fabs(sum / n - s.stats[0]) < 1e-12);
    s = evaluateCocoFiles((kFixtures + "/padilla-100/ground_truth.json").toStdString(),
                          (kFixtures + "/padilla-100/detections.json").toStdString());
    QCOMPARE(s.num_gt, int64_t(830));
    QCOMPARE(s.num_dt + s.skipped_dt, int64_t(734));
  }

  // Each detection equals its box, one object per image and category: every one of the 12 numbers is 1.
  void perfectDetectorGivesOne() {
    // Areas: 10x10 = 100 (small < 32^2), 50x50 = 2500 (medium), 120x120 = 14400 (large >= 96^2).
    const CocoGroundTruth gt = truth({1, 2}, {1, 2, 3},
                                     {box(1, 1, 1, 0, 0, 10, 10), box(2, 1, 2, 20, 20, 50, 50),
                                      box(3, 2, 3, 5, 5, 120, 120), box(4, 2, 1, 200, 200, 50, 50)});
    std::vector<CocoDetection> dt;
    for (const auto& a : gt.annotations)
      dt.push_back(det(a.image_id, a.category_id, a.x, a.y, a.w, a.h, 0.9));
    const CocoStats s = evaluateCoco(gt, dt);
    for (size_t i = 0; i < 12; ++i) QCOMPARE(s.stats[i], 1.0);
  }

  // One image, one class, four 200x200 boxes (area 40000: large); two detections, each IoU exactly 0.75
  // with its box (150x200 inside 200x200: 30000 / 40000), scores 0.9 and 0.8.
  // IoU thresholds .50 .. .75 (6 of 10, .75 included: a match needs IoU >= threshold) see 2 TP: recall
  // 0.25, 0.5 and precision 1, so the 101-point precision is 1 at recall 0.00 .. 0.50 (51 points) and 0
  // beyond: AP_t = 51/101. Thresholds .80 .. .95 see 2 FP: AP_t = 0, recall 0.
  //   AP = 6/10 * 51/101 = 306/1010, AP50 = AP75 = 51/101, APl = AP, APs = APm = -1 (no boxes there).
  //   AR100 = AR10 = 6/10 * 0.5 = 0.3; AR1 (one detection per image and class) = 6/10 * 0.25 = 0.15.
  void halfFoundAtIou075() {
    const CocoGroundTruth gt = truth({7}, {3},
                                     {box(1, 7, 3, 0, 0, 200, 200), box(2, 7, 3, 300, 0, 200, 200),
                                      box(3, 7, 3, 0, 300, 200, 200), box(4, 7, 3, 300, 300, 200, 200)});
    const std::vector<CocoDetection> dt = {det(7, 3, 0, 0, 150, 200, 0.9),
                                           det(7, 3, 300, 300, 150, 200, 0.8)};
    const CocoStats s = evaluateCoco(gt, dt);
    const std::array<double, 12> want{306.0 / 1010, 51.0 / 101, 51.0 / 101, -1, -1, 306.0 / 1010,
                                      0.15,         0.3,        0.3,        -1, -1, 0.3};
    for (size_t i = 0; i < 12; ++i) {
      QVERIFY2(std::fabs(s.stats[i] - want[i]) < 1e-12, qPrintable(QString("%1: %2 vs %3")
                                                                       .arg(cocoStatNames()[i])
                                                                       .arg(s.stats[i], 0, 'g', 17)
                                                                       .arg(want[i], 0, 'g', 17)));
    }
    QCOMPARE(s.per_category.size(), size_t(1));
    QCOMPARE(s.per_category[0].num_gt, int64_t(4));
    QVERIFY(std::fabs(s.per_category[0].ap - 306.0 / 1010) < 1e-12);
  }

  // Detections inside a crowd box are neither true nor false positives, and the crowd box is never missed.
  void crowdAbsorbsDetections() {
    // Regular box A (0,0,100,100); crowd box C (200,0,100,300). d1 hits A exactly (0.9); d2 and d3 lie fully
    // inside C (crowd IoU = intersection / detection area = 1) and score higher. Without crowd handling they
    // would be two leading false positives; with it every number is 1 (APl, ARl: A is 10000 >= 96^2).
    const CocoGroundTruth gt =
        truth({1}, {1}, {box(1, 1, 1, 0, 0, 100, 100), box(2, 1, 1, 200, 0, 100, 300, true)});
    std::vector<CocoDetection> dt = {det(1, 1, 0, 0, 100, 100, 0.9), det(1, 1, 210, 10, 50, 50, 0.95),
                                     det(1, 1, 220, 100, 60, 60, 0.97)};
    CocoStats s = evaluateCoco(gt, dt);
    QCOMPARE(s.num_crowd, int64_t(1));
    QCOMPARE(s.stats[0], 1.0);
    QCOMPARE(s.stats[8], 1.0);
    // A detection half outside C: (250,0,100,100) meets C in 50x100 = 5000 of its 10000: crowd IoU 0.5
    // (the ordinary IoU would be 5000/35000). At IoU .50 it is absorbed (AP_t = 1); at .55 .. .95 it is a
    // false positive ranked first: recall [0, 1], precision [0, 0.5] -> envelope 0.5 -> AP_t = 0.5.
    //   AP = (1 + 9 * 0.5) / 10 = 0.55, AP50 = 1, AP75 = 0.5; recall is 1 at every threshold: AR100 = 1.
    dt = {det(1, 1, 0, 0, 100, 100, 0.9), det(1, 1, 250, 0, 100, 100, 0.95)};
    s = evaluateCoco(gt, dt);
    QVERIFY(std::fabs(s.stats[0] - 0.55) < 1e-12);
    QVERIFY(std::fabs(s.stats[1] - 1.0) < 1e-12);
    QVERIFY(std::fabs(s.stats[2] - 0.5) < 1e-12);
    QCOMPARE(s.stats[8], 1.0);
  }

  // A detection that reaches a regular box keeps it even when a crowd box overlaps it more (pycocotools
  // stops at the first ignored box once a regular one matched).
  void regularMatchBeatsCrowd() {
    // A = (0,0,100,100) regular; C = (0,0,100,100) crowd, same place. d = (0,0,100,60): IoU with A = 0.6,
    // crowd IoU with C = 6000/6000 = 1. Thresholds .50 .. .60 (3): TP on A. .65 .. .95 (7): A fails, C
    // absorbs it (ignored): no TP, no FP, so precision has no entries (all 0) and recall 0.
    //   AP = 3/10 * 1 = 0.3, AR100 = 0.3.
    const CocoGroundTruth gt =
        truth({1}, {1}, {box(1, 1, 1, 0, 0, 100, 100), box(2, 1, 1, 0, 0, 100, 100, true)});
    const CocoStats s = evaluateCoco(gt, {det(1, 1, 0, 0, 100, 60, 0.9)});
    QVERIFY(std::fabs(s.stats[0] - 0.3) < 1e-12);
    QVERIFY(std::fabs(s.stats[8] - 0.3) < 1e-12);
  }

  void maxDetsPerImageAndCategory() {
    // Three boxes of one class in one image, three perfect detections: AR1 = 1/3, AR10 = AR100 = 1, AP = 1.
    CocoGroundTruth gt = truth(
        {1}, {1}, {box(1, 1, 1, 0, 0, 50, 50), box(2, 1, 1, 100, 0, 50, 50), box(3, 1, 1, 200, 0, 50, 50)});
    std::vector<CocoDetection> dt;
    for (const auto& a : gt.annotations)
      dt.push_back(det(1, 1, a.x, a.y, a.w, a.h, 0.9 - 0.1 * double(a.id)));
    CocoStats s = evaluateCoco(gt, dt);
    QVERIFY(std::fabs(s.stats[6] - 1.0 / 3) < 1e-12);
    QCOMPARE(s.stats[7], 1.0);
    QCOMPARE(s.stats[0], 1.0);
    // maxDets counts per image *and category*: two classes, one box each, one detection each: AR1 = 1.
    gt = truth({1}, {1, 2}, {box(1, 1, 1, 0, 0, 50, 50), box(2, 1, 2, 100, 0, 50, 50)});
    s = evaluateCoco(gt, {det(1, 1, 0, 0, 50, 50, 0.9), det(1, 2, 100, 0, 50, 50, 0.8)});
    QCOMPARE(s.stats[6], 1.0);
    // One box; 99 misses scored 0.9 and the hit scored 0.1: the hit is 100th, precision at recall 1 is
    // 1/100 -> AP_t = 0.01 at every threshold; AR100 = 1, AR10 = AR1 = 0.
    gt = truth({1}, {1}, {box(1, 1, 1, 0, 0, 50, 50)});
    dt.clear();
    for (int i = 0; i < 99; ++i) dt.push_back(det(1, 1, 1000 + 60 * i, 0, 50, 50, 0.9));
    dt.push_back(det(1, 1, 0, 0, 50, 50, 0.1));
    s = evaluateCoco(gt, dt);
    QVERIFY(std::fabs(s.stats[0] - 0.01) < 1e-12);
    QCOMPARE(s.stats[8], 1.0);
    QCOMPARE(s.stats[7], 0.0);
    // One more miss pushes the hit to 101st: it is cut before matching (maxDets 100), AP = AR100 = 0.
    dt.insert(dt.begin(), det(1, 1, 1000 + 60 * 99, 0, 50, 50, 0.9));
    s = evaluateCoco(gt, dt);
    QCOMPARE(s.stats[0], 0.0);
    QCOMPARE(s.stats[8], 0.0);
  }

  // Equal scores keep their order (mergesort): within an image the file order, across images the image id.
  void tiesAreStable() {
    // One box; a miss and a hit with the same score. Miss first: recall [0, 1], precision [0, 0.5] ->
    // envelope 0.5 -> AP = 0.5. Hit first: precision [1, 0.5], every recall threshold lands on index 0 -> 1.
    const CocoGroundTruth gt = truth({1, 2}, {1}, {box(1, 1, 1, 0, 0, 50, 50)});
    const CocoDetection miss = det(1, 1, 500, 500, 50, 50, 0.5), hit = det(1, 1, 0, 0, 50, 50, 0.5);
    QVERIFY(std::fabs(evaluateCoco(gt, {miss, hit}).stats[0] - 0.5) < 1e-12);
    QVERIFY(std::fabs(evaluateCoco(gt, {hit, miss}).stats[0] - 1.0) < 1e-12);
    // The miss in image 2 listed first still ranks after image 1's hit (images in id order): AP = 1.
    const CocoDetection miss2 = det(2, 1, 0, 0, 50, 50, 0.5);
    QVERIFY(std::fabs(evaluateCoco(gt, {miss2, hit}).stats[0] - 1.0) < 1e-12);
  }

  void noDetectionsAndUnknownCategories() {
    const CocoGroundTruth gt = truth({1}, {1}, {box(1, 1, 1, 0, 0, 50, 50)});
    CocoStats s = evaluateCoco(gt, {});
    QCOMPARE(s.stats[0], 0.0);
    QCOMPARE(s.stats[8], 0.0);
    QCOMPARE(s.stats[3], -1.0);  // no small boxes: undefined, printed as -1 like pycocotools
    s = evaluateCoco(gt, {det(1, 99, 0, 0, 50, 50, 0.9), det(1, 1, 0, 0, 50, 50, 0.8)});
    QCOMPARE(s.skipped_dt, int64_t(1));
    QCOMPARE(s.stats[0], 1.0);
  }

  void clearErrors() {
    QTemporaryDir dir;
    const QString gt = dir.path() + "/gt.json", dt = dir.path() + "/dt.json";
    writeText(gt, R"({"images":[{"id":1}],"categories":[{"id":1,"name":"a"}],)"
                  R"("annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,10,10],"area":100}]})");
    const auto expectError = [&](const QByteArray& dt_text, const char* needle) {
      writeText(dt, dt_text);
      try {
        evaluateCocoFiles(gt.toStdString(), dt.toStdString());
        QFAIL(qPrintable("no error for " + dt_text));
      } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains(needle), e.what());
      }
    };
    expectError(R"([{"image_id":1,"category_id":1,"bbox":[0,0,10,10],"score":0.5)", "not valid JSON");
    expectError(R"([{"image_id":5,"category_id":1,"bbox":[0,0,10,10],"score":0.5}])",
                "image_id 5 is not an image");
    expectError(R"([{"image_id":1,"category_id":1,"score":0.5}])", "detections[0]: missing \"bbox\"");
    expectError(R"([{"image_id":1,"category_id":1,"bbox":[0,0,10],"score":0.5}])", "[x, y, width, height]");
    expectError(R"([{"image_id":"a","category_id":1,"bbox":[0,0,1,1],"score":0.5}])",
                "ground truth names its images by integers");
    expectError(R"({"images":[]})", "COCO results list");
    writeText(dt, R"([{"image_id":1,"category_id":1,"bbox":[0,0,10,10],"score":0.5}])");
    try {
      evaluateCocoFiles(dt.toStdString(), gt.toStdString());  // swapped: a list given as ground truth
      QFAIL("swapped files accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("ground truth in gt="), e.what());
    }
    try {
      evaluateCocoFiles((dir.path() + "/missing.json").toStdString(), dt.toStdString());
      QFAIL("missing file accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("missing.json"), e.what());
    }
    CocoGroundTruth dup = truth({1}, {1}, {box(4, 1, 1, 0, 0, 5, 5), box(4, 1, 1, 9, 9, 5, 5)});
    QVERIFY_EXCEPTION_THROWN(evaluateCoco(dup, {}), Error);
  }

  // Ultralytics names the images of a custom dataset by their file stems (strings); pycocotools accepts any
  // id. The fixture's string-id files must give the 12 numbers pycocotools printed (expected.json), and
  // exactly the numbers of the same files renumbered 1..N in sorted-stem order (*_int.json).
  void stringImageIdsAsPycocotools() {
    for (const char* model : {"val-yolov8n", "val-yolo11n"}) {
      const QString dir = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/" + model;
      const CocoStats s = evaluateCocoFiles((dir + "/ground_truth.json").toStdString(),
                                            (dir + "/predictions.json").toStdString());
      const CocoStats si = evaluateCocoFiles((dir + "/ground_truth_int.json").toStdString(),
                                             (dir + "/predictions_int.json").toStdString());
      QFile f(dir + "/expected.json");
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QJsonArray want = QJsonDocument::fromJson(f.readAll()).object()["stats"].toArray();
      QCOMPARE(want.size(), 12);
      for (int i = 0; i < 12; ++i) {
        QVERIFY2(std::fabs(s.stats[size_t(i)] - want[i].toDouble()) < 1e-6,
                 qPrintable(QString("%1 stat %2: %3 vs %4")
                                .arg(model)
                                .arg(i)
                                .arg(s.stats[size_t(i)])
                                .arg(want[i].toDouble())));
        QCOMPARE(s.stats[size_t(i)], si.stats[size_t(i)]);
      }
      QCOMPARE(s.num_images, int64_t(64));
    }
    QTemporaryDir tmp;
    const QString gt = tmp.path() + "/gt.json", dt = tmp.path() + "/dt.json";
    writeText(gt, R"({"images":[{"id":"b"},{"id":"a"}],"categories":[{"id":1}],)"
                  R"("annotations":[{"id":1,"image_id":"a","category_id":1,"bbox":[0,0,10,10],"area":100},)"
                  R"({"id":2,"image_id":"zz","category_id":1,"bbox":[0,0,10,10],"area":100}]})");
    writeText(dt, R"([{"image_id":"a","category_id":1,"bbox":[0,0,10,10],"score":0.5}])");
    const CocoStats one = evaluateCocoFiles(gt.toStdString(), dt.toStdString());
    QCOMPARE(one.stats[0], 1.0);           // the one box of image "a" found
    QCOMPARE(one.skipped_gt, int64_t(1));  // the annotation of unknown image "zz" skipped
    writeText(dt, R"([{"image_id":"c","category_id":1,"bbox":[0,0,10,10],"score":0.5}])");
    QVERIFY_EXCEPTION_THROWN(evaluateCocoFiles(gt.toStdString(), dt.toStdString()), Error);
    writeText(dt, R"([{"image_id":1,"category_id":1,"bbox":[0,0,10,10],"score":0.5}])");
    QVERIFY_EXCEPTION_THROWN(evaluateCocoFiles(gt.toStdString(), dt.toStdString()), Error);
    writeText(gt, R"({"images":[{"id":"b"},{"id":2}],"categories":[{"id":1}],"annotations":[]})");
    QVERIFY_EXCEPTION_THROWN(evaluateCocoFiles(gt.toStdString(), dt.toStdString()), Error);
  }

  // Writing results and reading them back gives the same detections (rounded like Ultralytics' save_json)
  // and therefore the same numbers.
  void resultsRoundTrip() {
    const CocoGroundTruth gt =
        truth({1, 2}, {1, 2}, {box(1, 1, 1, 10, 10, 40, 40), box(2, 2, 2, 0, 0, 100, 80)});
    const std::vector<CocoDetection> dt = {det(1, 1, 11.0004, 10.2, 39.5, 40, 0.912345678),
                                           det(2, 2, 3, 1, 95, 77.25, 0.5), det(2, 1, 0, 0, 10, 10, 0.1)};
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/sub/results.json").toStdString();
    writeCocoDetections(path, dt);
    const std::vector<CocoDetection> back = loadCocoDetections(path);
    QCOMPARE(back.size(), dt.size());
    QCOMPARE(back[0].x, 11.0);         // 3 decimals
    QCOMPARE(back[0].score, 0.91235);  // 5 decimals
    QCOMPARE(back[1].h, 77.25);
    QCOMPARE(back[2].category_id, int64_t(1));
    QCOMPARE(evaluateCoco(gt, back).stats, evaluateCoco(gt, dt).stats);
    QCOMPARE(QString::fromStdString(cocoDetectionsJson({})), QString("[]\n"));
  }

  void textLayoutIsPycocotools() {
    CocoStats s;
    s.stats = {0.5036,   0.696973, 0.571667, 0.593252, 0.557991, -1,
               0.386813, 0.59368,  0.595353, 0.654764, 0.60313,  0.553744};
    const QStringList lines = QString::fromStdString(cocoStatsText(s)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 12);
    QCOMPARE(lines[0],
             QString(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.504"));
    QCOMPARE(lines[1],
             QString(" Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.697"));
    QCOMPARE(lines[5],
             QString(" Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = -1.000"));
    QCOMPARE(lines[6],
             QString(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.387"));
    QCOMPARE(lines[10],
             QString(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.603"));
  }

  void cliEvalCoco() {
    const QString dir = kFixtures + "/padilla-100";
    QProcess p;
    p.start(YW_CLI_PATH, {"eval-coco", "gt=" + dir + "/ground_truth.json", "dt=" + dir + "/detections.json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray out = p.readAllStandardOutput();
    // expected.json: AP 0.503647 -> "0.504"
    QVERIFY2(out.contains(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.504"),
             out.constData());
    p.start(YW_CLI_PATH,
            {"eval-coco", "gt=" + dir + "/ground_truth.json", "dt=" + dir + "/detections.json", "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QVERIFY(std::fabs(j["stats"].toArray()[1].toDouble() - 0.696973) < 1e-6);
    QCOMPARE(j["ground_truth"].toInt(), 830);
    p.start(YW_CLI_PATH, {"eval-coco", "gt=" + dir + "/detections.json", "dt=" + dir + "/detections.json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(p.readAllStandardError().contains("gt="));
    // The benchmark verb runs end to end on a small synthetic head.
    p.start(YW_CLI_PATH, {"bench", "eval", "images=8", "batch=4", "classes=5", "anchors=400",
                          "coco_images=20", "threads=1", "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject b = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QVERIFY(b["nms_ms_per_image"].toDouble() > 0);
    QCOMPARE(b["coco_images"].toInt(), 20);
  }
};

QTEST_GUILESS_MAIN(TestEvalCoco)
#include "test_eval_coco.moc"
