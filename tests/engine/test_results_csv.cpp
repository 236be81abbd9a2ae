// results.csv (ywb/results_csv.h) and the fitness rule (ywb/metrics.h): what the trainer writes is what the
// Runs tab and a resume read back, Ultralytics' own files included, and the best row is the trainer's best.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "core/atomic_file.h"
#include "sample_epoch.h"
#include "train/run_dir.h"
#include "ywb/error.h"
#include "ywb/metrics.h"
#include "ywb/results_csv.h"
#include "ywb/run_record.h"

using namespace ywb;
using ywb::test::sampleEpoch;

namespace {

ResultsRow row(int epoch, double map50, double map, double val_loss) {
  ResultsRow r;
  r.epoch = epoch;
  r.map50 = map50;
  r.map = map;
  r.val_box = r.val_cls = r.val_dfl = val_loss;
  return r;
}

}  // namespace

class TestResultsCsv : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void resultsCsvRoundTrip() {
    QTemporaryDir dir;
    const std::string csv = dir.path().toStdString() + "/results.csv";
    // Values with at most 5 significant digits (the file's '%.5g'), time with 3 decimals.
    EpochMetrics m = sampleEpoch();
    appendResultsRow(csv, resultsRowOf(m));
    const auto rows = readResults(csv);
    QCOMPARE(rows.size(), size_t(1));
    const ResultsRow& r = rows[0];
    QCOMPARE(r.epoch, 5);  // 1-based in the file
    QCOMPARE(r.time, m.time_s);
    QCOMPARE(r.train_box, m.train_box);
    QCOMPARE(r.train_cls, m.train_cls);
    QCOMPARE(r.train_dfl, m.train_dfl);
    QCOMPARE(r.precision, m.precision);
    QCOMPARE(r.recall, m.recall);
    QCOMPARE(r.map50, m.map50);
    QCOMPARE(r.map, m.map);
    QCOMPARE(r.val_box, m.val_box);
    QCOMPARE(r.val_cls, m.val_cls);
    QCOMPARE(r.val_dfl, m.val_dfl);
    QCOMPARE(r.lr0, m.lr[0]);
    QCOMPARE(r.lr1, m.lr[1]);
    QCOMPARE(r.lr2, m.lr[2]);
    // resultsRowValues follows resultsColumns: the Runs tab picks columns by these names.
    const auto v = resultsRowValues(r);
    QCOMPARE(v.size(), resultsColumns().size());
    QCOMPARE(resultsColumns()[8], std::string("metrics/mAP50-95(B)"));
    QCOMPARE(v[8], m.map);
    QCOMPARE(resultsColumns()[14], std::string("lr/pg2"));
    QCOMPARE(v[14], m.lr[2]);
  }

  void runFoldersAndResults() {
    QTemporaryDir dir;
    const std::string project = dir.path().toStdString();
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train2");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train3");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", true)), dir.path() + "/train");
    QVERIFY(QFileInfo(dir.path() + "/train2/weights").isDir());
    const std::string csv = project + "/results.csv";
    for (int e = 1; e <= 3; ++e) {
      ywb::ResultsRow r;
      r.epoch = e;
      r.map = 0.1 * e;
      r.lr0 = 0.01;
      ywb::appendResultsRow(csv, r);
    }
    auto rows = ywb::readResults(csv);
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(rows[2].map, 0.3);
    const std::string text = ywb::readFile(csv);
    QVERIFY(text.rfind("epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),", 0) ==
            0);
    ywb::truncateResults(csv, 2);
    QCOMPARE(ywb::readResults(csv).size(), size_t(2));
    std::ofstream(csv, std::ios::app) << "3,1.0,oops\n";
    try {
      ywb::readResults(csv);
      QFAIL("expected an error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("results.csv:4:"), e.what());
    }
  }

  void resultsCsvO2mColumnOnlyForEndToEndRuns() {
    // An end-to-end run (YOLO26) writes its epoch's o2m weight in a last column; other runs keep exactly
    // Ultralytics' 15 columns. A resume's truncation keeps whichever header the file has.
    QTemporaryDir dir;
    const std::string plain = dir.path().toStdString() + "/plain.csv",
                      e2e = dir.path().toStdString() + "/e2e.csv";
    EpochMetrics m = sampleEpoch();
    m.end2end = false;
    ywb::appendResultsRow(plain, resultsRowOf(m));
    QVERIFY(ywb::readFile(plain).find("o2m") == std::string::npos);
    QCOMPARE(ywb::readResults(plain)[0].o2m, 0.0);
    m.end2end = true;
    for (int e = 0; e < 3; ++e) {
      m.epoch = e;
      m.o2m = 0.8 - 0.35 * e;  // 0.8, 0.45, 0.1: a 3-epoch run's schedule
      ywb::appendResultsRow(e2e, resultsRowOf(m));
    }
    const std::string text = ywb::readFile(e2e);
    QVERIFY2(text.find(",lr/pg2,o2m\n") != std::string::npos, text.c_str());
    auto rows = ywb::readResults(e2e);
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(rows[1].o2m, 0.45);
    QCOMPARE(rows[2].o2m, 0.1);
    QCOMPARE(resultsRowValues(rows[2]).back(), 0.1);
    QCOMPARE(resultsColumns().back(), std::string("o2m"));
    ywb::truncateResults(e2e, 2);
    rows = ywb::readResults(e2e);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].o2m, 0.45);
    QVERIFY(ywb::readFile(e2e).find(",lr/pg2,o2m\n") != std::string::npos);
  }

  void readsUltralyticsPaddedHeader() {
    // Ultralytics' own results.csv (older 8.x) pads every name to a fixed width, and a file may carry columns
    // we do not know; columns are matched by trimmed name.
    QTemporaryDir dir;
    const std::string csv = dir.path().toStdString() + "/results.csv";
    std::ofstream(csv) << "                  epoch,         extra,   metrics/mAP50-95(B),    val/box_loss\n"
                       << "                      1,             7,               0.25,          1.5\n"
                       << "                      2,             7,               0.5,           1.25\n";
    const auto rows = readResults(csv);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].epoch, 2);
    QCOMPARE(rows[1].map, 0.5);
    QCOMPARE(rows[1].val_box, 1.25);
    QCOMPARE(rows[1].map50, 0.0);  // absent column
    std::ofstream(csv) << "time,box\n1,2\n";
    QVERIFY_THROWS_EXCEPTION(ywb::Error, readResults(csv));
  }

  void fitnessIsMap5095() {
    // Ultralytics 8.3 (the version of ../shared/fixtures/ultralytics) stores in yolov8n-shapes.pt
    // train_metrics.fitness = 0.16775 bit-identical to metrics/mAP50-95(B), while its mAP50 is 0.30503:
    // fitness there is mAP50-95 alone, not YOLOv5's 0.1 mAP50 + 0.9 mAP50-95 (which would give 0.18148).
    QCOMPARE(modelFitness(0.9, 0.8, 0.30503, 0.16775), 0.16775);
    DetectionResults r;
    r.map50 = 0.7;
    r.map = 0.4;
    QCOMPARE(r.fitness(), 0.4);
    QVERIFY(isNewBest(0.0, false, 0.0));  // the first validated epoch is always best
    QVERIFY(!isNewBest(0.4, true, 0.4));  // a tie keeps the earlier epoch
    QVERIFY(isNewBest(0.41, true, 0.4));
  }

  void bestRowIsTheTrainersBest() {
    // Epoch 2: mAP50 0.90, mAP50-95 0.40; epoch 3: mAP50 0.50, mAP50-95 0.42. By mAP50-95 (the trainer's
    // fitness) epoch 3 is best; 0.1/0.9 weighting would say epoch 2 (0.45 > 0.428) - the old Runs tab's
    // error. Epoch 1 was not validated (val=false writes 0 losses) and epoch 4 ties epoch 3 (the earlier one
    // stays).
    std::vector<ResultsRow> rows = {row(1, 0, 0, 0), row(2, 0.9, 0.40, 1), row(3, 0.5, 0.42, 1),
                                    row(4, 0.6, 0.42, 1)};
    QCOMPARE(bestResultsRow(rows), 2);
    QCOMPARE(bestResultsRow({row(1, 0, 0, 0)}), -1);
    QCOMPARE(bestResultsRow({row(1, 0, 0, 0), row(2, 0, 0, 1)}), 1);  // validated with mAP 0 still counts
  }
};

QTEST_GUILESS_MAIN(TestResultsCsv)
#include "test_results_csv.moc"
