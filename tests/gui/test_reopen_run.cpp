// Coming back to a run (issue 34, part 2): a run folder opened again (File > Open, the command line, the Runs
// tab) shows the run as it was: Training charts drawn from its results.csv with the best epoch and Mosaic's
// close marked, the phase, Resume with its own settings, its dataset in Predictions and the first validation
// image in Feature maps. On a run trained here and on Ultralytics 8.3.253's own run folder; damaged parts are
// named; several runs selected in Runs overlay their curves; the window fits 1440x900 and 1366x768.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QtTest>
#include <filesystem>

#include "feature_maps_tab.h"
#include "log_view.h"
#include "main_window.h"
#include "metric_chart.h"
#include "predictions_tab.h"
#include "runs_tab.h"
#include "support/screenshots.h"
#include "support/tiny_run.h"
#include "training_tab.h"
#include "ywb/results_csv.h"

namespace fs = std::filesystem;

namespace {
const QString kUltra = QString(YW_SHARED_DIR) + "/fixtures/ultralytics";
const QString kUltraRun = kUltra + "/reference-avx2/run";

// The y values of a chart's series, in x order.
QVector<double> seriesValues(ywb::gui::MetricChart* c, int series) {
  QVector<double> out;
  for (auto it = c->graph(series)->data()->constBegin(); it != c->graph(series)->data()->constEnd(); ++it)
    out << it->value;
  return out;
}

bool hasMarker(ywb::gui::MetricChart* c, double x, const QString& label) {
  for (const auto& [mx, text] : c->markers())
    if (std::abs(mx - x) < 1e-9 && text == label) return true;
  return false;
}
}  // namespace

class TestReopenRun : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_reopen_run");
    QSettings().clear();
    QVERIFY(tmp_.isValid());
    // A run trained here: 2 epochs on a tiny generated dataset, Mosaic closed for the last epoch.
    ywb::TrainArgs a = ywb::test::tinyRunArgs(
        ywb::test::tinyDataset(tmp_.path().toStdString(), {8, 4, 64, 5, ywb::SynthOptions{}.max_objects, 1}),
        (tmp_.path() + "/runs/detect").toStdString());
    a = ywb::test::withArgs(
        a, {{"imgsz", "64"}, {"batch", "4"}, {"workers", "1"}, {"name", "tiny"}, {"close_mosaic", "1"}});
    ywb::Trainer trainer(a);
    tiny_ = QString::fromStdString(trainer.run().run_dir);
    QVERIFY(QFileInfo::exists(tiny_ + "/results.csv"));
    // Ultralytics' run beside it (runs/detect/train), with the dataset its args.yaml names
    // (data: ../../shapes/data.yaml, relative to where Ultralytics ran, here three levels above the run).
    ultra_ = tmp_.path() + "/runs/detect/train";
    fs::copy(kUltraRun.toStdString(), ultra_.toStdString(), fs::copy_options::recursive);
    fs::copy((kUltra + "/shapes").toStdString(), (tmp_.path() + "/runs/shapes").toStdString(),
             fs::copy_options::recursive);
  }

  void runTrainedHereOpensAsItWas() {
    QElapsedTimer clock;
    clock.start();
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(tiny_));
    QCOMPARE(w.tabs()->currentWidget(), w.training());
    ywb::gui::TrainingTab* t = w.training();
    // The expected numbers are the run's own results.csv rows (the engine's reader).
    const std::vector<ywb::ResultsRow> rows = ywb::readResults((tiny_ + "/results.csv").toStdString());
    QCOMPARE(int(rows.size()), 2);
    QVector<double> map, box;
    for (const auto& r : rows) {
      map << r.map;
      box << r.train_box;
    }
    QCOMPARE(seriesValues(t->chart("map"), 1), map);
    QCOMPARE(seriesValues(t->chart("trainLoss"), 0), box);
    QCOMPARE(t->chart("valLoss")->points(0), 2);
    QCOMPARE(t->chart("precisionRecall")->points(1), 2);
    QCOMPARE(t->chart("lr")->points(0) + t->chart("lr")->points(1) > 0, true);
    // Markers: Mosaic closed for the last epoch (epochs 2 - close_mosaic 1 = 1), the best epoch by the
    // engine's rule (bestResultsRow) on the same rows.
    QVERIFY(hasMarker(t->chart("map"), 1, "close mosaic"));
    const int best = ywb::bestResultsRow(rows);
    QVERIFY(best >= 0);
    QVERIFY(hasMarker(t->chart("map"), rows[size_t(best)].epoch, "best"));
    QVERIFY2(t->phaseLabel()->text().contains("finished at epoch 2"), qPrintable(t->phaseLabel()->text()));
    // Resume is offered for this run (it has weights/last.safetensors).
    QVERIFY(t->resumeShownButton()->isVisible());
    QVERIFY(t->resumeShownButton()->isEnabled());
    QCOMPARE(t->shownRun(), tiny_);
    // Its log (train.log, written by the trainer) is in the Training tab's log view: epoch 2's progress line.
    auto* tlog = t->findChild<ywb::gui::LogView*>("trainingLog");
    QVERIFY(tlog->toPlainText().contains("its log (train.log)"));
    QVERIFY(tlog->toPlainText().contains(QRegularExpression(R"(\n\s+2/2\s)")));
    // Predictions: the run's dataset from args.yaml; its best weights.
    const QString data = QFileInfo(tmp_.path() + "/shapes/data.yaml").absoluteFilePath();
    QCOMPARE(w.predictions()->findChild<QLineEdit*>("predData")->text(), data);
    QCOMPARE(w.predictions()->findChild<QLineEdit*>("predWeights")->text(),
             tiny_ + "/weights/best.safetensors");
    // Feature maps: the first validation image (sorted by path) once the dataset is listed.
    const QString first_val = QDir(tmp_.path() + "/shapes/images/val")
                                  .entryInfoList(QDir::Files, QDir::Name)
                                  .front()
                                  .absoluteFilePath();
    QTRY_COMPARE_WITH_TIMEOUT(w.featureMaps()->findChild<QLineEdit*>("fmImage")->text(), first_val, 30000);
    QVERIFY(w.statusBar()->currentMessage().startsWith("Opened run"));
    QVERIFY(w.grab().save(shotsDir() + "/reopen_tiny_run.png"));
    qInfo("opened in %lld ms", qint64(clock.elapsed()));
  }

  void ultralyticsRunOpensTheSameWay() {
    ywb::gui::MainWindow w;
    w.resize(1440, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(ultra_));
    ywb::gui::TrainingTab* t = w.training();
    // results.csv of Ultralytics 8.3.253: 30 rows; args.yaml: epochs 30, close_mosaic 10.
    const std::vector<ywb::ResultsRow> rows = ywb::readResults((ultra_ + "/results.csv").toStdString());
    QCOMPARE(int(rows.size()), 30);
    QCOMPARE(t->chart("map")->points(1), 30);
    QCOMPARE(seriesValues(t->chart("map"), 1).back(), rows.back().map);
    QVERIFY(hasMarker(t->chart("map"), 20, "close mosaic"));
    QVERIFY(hasMarker(t->chart("map"), rows[size_t(ywb::bestResultsRow(rows))].epoch, "best"));
    QVERIFY2(t->phaseLabel()->text().contains("finished at epoch 30"), qPrintable(t->phaseLabel()->text()));
    // Offered but not possible: the trainer resumes weights/last.safetensors, Ultralytics wrote last.pt.
    QVERIFY(t->resumeShownButton()->isVisible());
    QVERIFY(!t->resumeShownButton()->isEnabled());
    QCOMPARE(w.predictions()->findChild<QLineEdit*>("predWeights")->text(), ultra_ + "/weights/best.pt");
    QCOMPARE(w.predictions()->findChild<QLineEdit*>("predData")->text(),
             QFileInfo(tmp_.path() + "/runs/shapes/data.yaml").absoluteFilePath());
    QTRY_VERIFY_WITH_TIMEOUT(
        w.featureMaps()->findChild<QLineEdit*>("fmImage")->text().contains("/runs/shapes/images/val/"),
        30000);
    QVERIFY2(w.statusBar()->currentMessage().startsWith("Opened run"),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.grab().save(shotsDir() + "/reopen_ultralytics_run.png"));
  }

  void damagedPartsAreNamed() {
    QTemporaryDir tmp;
    const QString bad = tmp.path() + "/bad";
    fs::copy(kUltraRun.toStdString(), bad.toStdString(), fs::copy_options::recursive);
    QFile::remove(bad + "/args.yaml");
    QFile csv(bad + "/results.csv");
    QVERIFY(csv.open(QIODevice::Append));
    csv.write("31,oops\n");
    csv.close();
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(bad));
    const QString msg = w.statusBar()->currentMessage();
    QVERIFY2(msg.contains("results.csv could not be read") && msg.contains("args.yaml is missing"),
             qPrintable(msg));
    QVERIFY(w.log()->toPlainText().contains("results.csv could not be read"));
    // What could be read is shown: the weights.
    QCOMPARE(w.predictions()->findChild<QLineEdit*>("predWeights")->text(), bad + "/weights/best.pt");

    // results.csv readable, args.yaml damaged: the charts, and a message naming args.yaml.
    const QString half = tmp.path() + "/half";
    fs::copy(kUltraRun.toStdString(), half.toStdString(), fs::copy_options::recursive);
    QFile args(half + "/args.yaml");
    QVERIFY(args.open(QIODevice::WriteOnly | QIODevice::Truncate));
    args.write("epochs: [1, 2\nimgsz: }\n");
    args.close();
    QVERIFY(w.openPath(half));
    QVERIFY2(w.statusBar()->currentMessage().contains("args.yaml could not be read"),
             qPrintable(w.statusBar()->currentMessage()));
    QCOMPARE(w.training()->chart("map")->points(1), 30);
    QVERIFY(w.training()->phaseLabel()->text().contains("epoch 30"));
  }

  void severalRunsOverlayInTraining() {
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.runs()->setRunsFolder(tmp_.path() + "/runs/detect");
    QTableWidget* table = w.runs()->table();
    QCOMPARE(table->rowCount(), 2);
    table->selectAll();
    // Each chart: its own series (first run) plus one per column of the second run.
    ywb::gui::TrainingTab* t = w.training();
    QCOMPARE(t->chart("map")->graphCount(), 4);
    QCOMPARE(t->chart("trainLoss")->graphCount(), 7);  // its own: box, cls, dfl and the o2m weight (YOLO26)
    QCOMPARE(t->chart("lr")->graphCount(), 5);
    const int overlaid = t->chart("map")->points(3);
    QVERIFY(overlaid == 2 || overlaid == 30);  // the tiny run's 2 epochs or Ultralytics' 30
    QVERIFY(t->chart("map")->points(1) + overlaid == 32);
    w.tabs()->setCurrentWidget(t);
    QVERIFY(w.grab().save(shotsDir() + "/reopen_overlay.png"));
    // Double-clicking a run opens it (one run again: no overlays).
    Q_EMIT table->cellDoubleClicked(0, 0);
    QCOMPARE(t->chart("map")->graphCount(), 2);
    QCOMPARE(w.tabs()->currentWidget(), t);
  }

  void windowFitsTheScreen_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("1440x900") << 1440 << 900;
    QTest::newRow("1366x768") << 1366 << 768;
  }

  void windowFitsTheScreen() {
    // With a dataset with a long path and a run open, the window is no wider or taller than the screen.
    QFETCH(int, width);
    QFETCH(int, height);
    QTemporaryDir tmp;
    const QString deep = tmp.path() + "/" + QString("a-rather-long-folder-name-for-a-dataset/").repeated(4);
    fs::create_directories(deep.toStdString());
    fs::copy((tmp_.path() + "/shapes").toStdString(), (deep + "shapes").toStdString(),
             fs::copy_options::recursive);
    ywb::gui::MainWindow w;
    w.resize(width, height);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(deep + "shapes/data.yaml"));
    QVERIFY(w.openPath(ultra_));
    for (int i = 0; i < w.tabs()->count(); ++i) {
      w.tabs()->setCurrentIndex(i);
      QTest::qWait(50);
      QVERIFY2(w.minimumSizeHint().width() <= width && w.width() <= width,
               qPrintable(QString("%1: %2 wide").arg(w.tabs()->tabText(i)).arg(w.width())));
      QVERIFY2(w.minimumSizeHint().height() <= height && w.height() <= height,
               qPrintable(QString("%1: %2 high").arg(w.tabs()->tabText(i)).arg(w.height())));
    }
    w.tabs()->setCurrentWidget(w.training());
    QTest::qWait(200);
    // The System dock (doctor text and chart) lies wholly inside the window.
    auto* dock = w.findChild<QWidget*>("systemDock");
    QVERIFY(dock && dock->isVisible());
    QVERIFY2(dock->geometry().right() < w.width(), qPrintable(QString::number(dock->geometry().right())));
    // The doctor's text in the screenshot (it wraps inside the dock).
    auto* doctor = w.findChild<QTextBrowser*>("doctorSummary");
    QVERIFY(doctor);
    QTRY_VERIFY_WITH_TIMEOUT(doctor->toPlainText().contains("LibTorch"), 60000);
    QVERIFY(doctor->horizontalScrollBar()->maximum() == 0);  // nothing cut at the right
    QVERIFY(w.grab().save(shotsDir() + QString("/reopen_fits_%1x%2.png").arg(width).arg(height)));
  }

  void resumeThisRunContinuesItsCurves() {
    // Last (it extends the tiny run): "Resume this run..." asks how many epochs in all (the run's 2 by
    // default), then continues the run with its own arguments; the live epoch joins the curves drawn from
    // results.csv.
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(tiny_));
    ywb::gui::TrainingTab* t = w.training();
    QCOMPARE(t->chart("map")->points(1), 2);
    int asked_default = -1;
    QTimer::singleShot(300, this, [&asked_default] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      asked_default = dialog->intValue();
      dialog->setIntValue(3);
      dialog->accept();
    });
    QSignalSpy finished(t, &ywb::gui::TrainingTab::runFinished);
    t->resumeShownButton()->click();
    QCOMPARE(asked_default, 2);  // the run's own epochs (args.yaml)
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished.front().front().toString(), tiny_);
    // results.csv now has 3 rows; the chart holds the 2 read back and the one trained live.
    const std::vector<ywb::ResultsRow> rows = ywb::readResults((tiny_ + "/results.csv").toStdString());
    QCOMPARE(int(rows.size()), 3);
    QCOMPARE(t->chart("map")->points(1), 3);
    QCOMPARE(seriesValues(t->chart("map"), 1).back(), rows.back().map);
  }

 private:
  QTemporaryDir tmp_;
  QString tiny_, ultra_;
};

QTEST_MAIN(TestReopenRun)
#include "test_reopen_run.moc"
