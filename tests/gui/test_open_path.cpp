// The GUI's command line and File menu: `yolo-workbench [PATH]` and File > Open route PATH by what the engine
// reads it as (MainWindow::openPath), --help and --version answer without a display, and a bad path is a
// message, never a crash.
#include <QAction>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <filesystem>

#include "dataset_tab.h"
#include "feature_maps_tab.h"
#include "hyperparams_tab.h"
#include "log_view.h"
#include "main_window.h"
#include "predictions_tab.h"
#include "runs_tab.h"
#include "support/answer_file_dialog.h"
#include "support/screenshots.h"
#include "training_tab.h"
#include "ywb/quick_start.h"
#include "ywb/results_csv.h"
#include "ywb/tune.h"
#include "ywb/version.h"

namespace {
const QString kCoco = QString(YW_SHARED_DIR) + "/datasets/coco128/data.yaml";
const QString kUltra = QString(YW_SHARED_DIR) + "/fixtures/ultralytics";
}  // namespace

class TestOpenPath : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_open_path");
  }

  void dataYamlArgumentShowsTheDataset() {
    ywb::gui::MainWindow w;
    auto* ds = w.dataset();
    QSignalSpy scanned(ds, &ywb::gui::DatasetTab::datasetScanned);
    QVERIFY(w.openPath(kCoco));  // what main() does with the command-line argument
    QCOMPARE(w.tabs()->currentWidget(), ds);
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 1, 60000);
    QCOMPARE(ds->dataYaml(), QFileInfo(kCoco).absoluteFilePath());
    QVERIFY(ds->findChild<QLabel*>("datasetSummary")->text().contains("80 classes"));
    // The train split of coco128: 128 images (its README), listed by file name relative to images/train2017.
    QCOMPARE(ds->images()->topLevelItemCount(), 128);
    QCOMPARE(ds->images()->topLevelItem(0)->text(0), QString("000000000009.jpg"));
    QCOMPARE(ds->images()->topLevelItem(0)->text(1), QString("ok"));
    // 000000000009.txt has 8 rows (counted in ../shared/datasets/coco128/labels/train2017).
    QCOMPARE(ds->images()->topLevelItem(0)->text(2), QString("8"));
    // It became the training data.
    QCOMPARE(w.hyperparams()->value("data"), QFileInfo(kCoco).absoluteFilePath());
    // The folder holding the data.yaml opens the same dataset.
    QVERIFY(w.openPath(QFileInfo(kCoco).absolutePath()));
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 2, 60000);
  }

  void badPathsAreMessages() {
    ywb::gui::MainWindow w;
    QVERIFY(!w.openPath("/nonexistent/data.yaml"));
    QVERIFY(w.statusBar()->currentMessage().contains("does not exist"));
    QVERIFY(w.log()->toPlainText().contains("/nonexistent/data.yaml does not exist"));
    QTemporaryDir tmp;
    QFile junk(tmp.path() + "/junk.bin");
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("not weights");
    junk.close();
    QVERIFY(!w.openPath(junk.fileName()));
    QVERIFY2(w.statusBar()->currentMessage().contains("could not be opened as weights"),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(!w.openPath(tmp.path()));  // a folder with nothing to open
    QVERIFY(w.statusBar()->currentMessage().contains("without a data.yaml"));
  }

  void tuneFolderOpensItsBestRun() {
    // A `ywb tune` folder written by hand: two finished iterations, the second the fitter (0.3 against 0.1 in
    // tune_results.csv). Opening the folder opens that run, listed beside the other in Runs.
    QTemporaryDir tmp;
    const QString tune = tmp.path() + "/tune";
    for (int i : {1, 2}) {
      QVERIFY(QDir().mkpath(tune + QString("/iter%1").arg(i)));
      ywb::ResultsRow r;
      r.epoch = 1;
      r.map = i == 2 ? 0.3 : 0.1;
      r.val_box = 1;
      ywb::appendResultsRow((tune + QString("/iter%1/results.csv").arg(i)).toStdString(), r);
    }
    const auto write = [&](const QString& name, const QByteArray& text) {
      QFile f(tune + "/" + name);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    };
    write("tune.yaml", "iterations: 2\nseed: 0\nspace:\n  lr0: [0.001, 0.1, 1]\n");
    write(ywb::tuneResultsFileName(), "fitness,lr0\n0.1,0.01\n0.3,0.02\n");
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(tune));
    QVERIFY2(w.statusBar()->currentMessage().contains("tune/iter2"),
             qPrintable(w.statusBar()->currentMessage()));
    QCOMPARE(QDir(w.runs()->runsFolder()).absolutePath(), QDir(tune).absolutePath());
    QCOMPARE(w.runs()->table()->rowCount(), 2);
    const QList<QTableWidgetItem*> selected = w.runs()->table()->selectedItems();
    QVERIFY(!selected.isEmpty());
    QCOMPARE(w.runs()->table()->item(selected.front()->row(), 0)->text(), QString("iter2"));
    w.resize(1400, 900);
    w.tabs()->setCurrentWidget(w.runs());
    QVERIFY(w.grab().save(shotsDir() + "/runs_tune_folder.png"));
    write(ywb::tuneResultsFileName(), "fitness,lr0\n");  // none finished yet: a message
    QVERIFY(!w.openPath(tune));
    QVERIFY2(w.statusBar()->currentMessage().contains("tune folder without a finished run"),
             qPrintable(w.statusBar()->currentMessage()));
  }

  void fileOpenReadsUltralyticsWeights() {
    // File > Open (Ctrl+O) on Ultralytics' own checkpoint: no conversion, no Python. The Predictions tab then
    // validates it on a copy of its dataset with Ultralytics' numbers (val-yolov8n/expected.json: pycocotools
    // on Ultralytics' own detections, mAP50-95 0.1742; within 0.005 as `ywb val`), and Feature maps shows it.
    QTemporaryDir tmp;
    const std::string shapes = tmp.path().toStdString() + "/shapes";
    std::filesystem::copy((kUltra + "/shapes").toStdString(), shapes,
                          std::filesystem::copy_options::recursive);
    const QString pt = kUltra + "/yolov8n-shapes.pt";
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* open = w.findChild<QAction*>("actionOpen");
    QVERIFY(open);
    QCOMPARE(open->shortcut(), QKeySequence(QKeySequence::Open));
    QStringList filters;
    ywb::test::answerFileDialog(pt, &filters);
    open->trigger();
    QVERIFY2(filters.join(" ").contains("*.pt"), qPrintable(filters.join(" | ")));
    QCOMPARE(w.tabs()->currentWidget(), w.predictions());
    QVERIFY2(w.statusBar()->currentMessage().contains("Opened weights"),
             qPrintable(w.statusBar()->currentMessage()));

    auto* pred = w.predictions();
    pred->setDataset(QString::fromStdString(shapes) + "/data.yaml");
    QSignalSpy validated(pred, &ywb::gui::PredictionsTab::validated);
    pred->validate();
    QTRY_VERIFY_WITH_TIMEOUT(validated.count() == 1, 120000);
    QVERIFY(validated.first().first().toBool());
    QFile f(kUltra + "/val-yolov8n/expected.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray want = QJsonDocument::fromJson(f.readAll()).object()["stats"].toArray();
    QVERIFY(std::abs(pred->report().metrics.map - want[0].toDouble()) <= 0.005);
    QVERIFY(std::abs(pred->report().metrics.map50 - want[1].toDouble()) <= 0.005);
    QCOMPARE(pred->report().names.size(), size_t(6));  // the checkpoint's names (shapes/data.yaml: 6)
    // For a look by eye (not compared): build/<preset>/screenshots/*_ultralytics_pt.png
    const QString shots = shotsDir();
    w.resize(1400, 900);
    QTest::qWait(100);
    w.grab().save(shots + "/predictions_ultralytics_pt.png");

    auto* fm = w.featureMaps();
    QSignalSpy shown(fm, &ywb::gui::FeatureMapsTab::shown);
    const QString image = QString::fromStdString(shapes) + "/images/val/" +
                          QDir(QString::fromStdString(shapes) + "/images/val").entryList(QDir::Files).first();
    fm->setImage(image);
    fm->compute();
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 60000);
    QVERIFY(shown.first().first().toBool());
    // resources/models/yolov8.yaml: 23 layers (0..22): 22 layers' outputs, then one entry for the Detect
    // head's score maps (a single, one-to-many head).
    QCOMPARE(fm->layers()->count(), 23);
    QVERIFY(!fm->mosaic().isNull());
    // At the size the checkpoint was trained at (its train_args: imgsz 128, `ywb weights info`), as `ywb val`
    // and `ywb predict` use it: layer 0 (stride 2) of a 128-px letterbox is at most 64 px wide.
    QCOMPARE(fm->findChild<QSpinBox*>("fmImgsz")->value(), 128);
    QVERIFY2(fm->findChild<QLabel*>("fmStatus")->text().contains("of 64x"),
             qPrintable(fm->findChild<QLabel*>("fmStatus")->text()));
    w.tabs()->setCurrentWidget(fm);
    QTest::qWait(100);
    w.grab().save(shots + "/feature_maps_ultralytics_pt.png");

    // File > Open folder on the dataset's folder opens its data.yaml in the Dataset tab.
    QStringList none;
    ywb::test::answerFileDialog(QString::fromStdString(shapes), &none);
    w.findChild<QAction*>("actionOpenFolder")->trigger();
    QCOMPARE(w.tabs()->currentWidget(), w.dataset());
  }

  void hyperparameterYamlGoesToItsTab() {
    QTemporaryDir tmp;
    QFile f(tmp.path() + "/hyp.yaml");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("lr0: 0.02\nmosaic: 0.5\n");
    f.close();
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(f.fileName()));
    QCOMPARE(w.tabs()->currentWidget(), w.hyperparams());
    QCOMPARE(w.hyperparams()->value("lr0").toDouble(), 0.02);
  }

  void quickStartIsReadyToPressStart() {
    // The GUI path of the quick start: the shapes dataset generated, opened, the quick settings filled in
    // (the values ywb::quickStart owns, read back from it) and the Training tab shown.
    QTemporaryDir tmp;
    ywb::gui::MainWindow w;
    QSignalSpy scanned(w.dataset(), &ywb::gui::DatasetTab::datasetScanned);
    w.startQuickStart(tmp.path() + "/shapes");
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 1, 120000);
    QVERIFY(scanned.first().first().toBool());
    const ywb::QuickStart q = ywb::quickStart((tmp.path() + "/shapes").toStdString());
    QCOMPARE(w.tabs()->currentWidget(), w.training());
    QCOMPARE(w.dataset()->images()->topLevelItemCount(), q.dataset.train);
    const ywb::TrainArgs a = w.hyperparams()->args();
    QCOMPARE(QFileInfo(QString::fromStdString(a.data)).absoluteFilePath(),
             QFileInfo(QString::fromStdString(q.train.data)).absoluteFilePath());
    QCOMPARE(a.epochs, q.train.epochs);
    QCOMPARE(a.imgsz, q.train.imgsz);
    QCOMPARE(QString::fromStdString(a.model), QString::fromStdString(q.train.model));
    QVERIFY(w.statusBar()->currentMessage().contains("press Start"));
    // The time it announces is the quick start's own measured minutes (4 on AVX-512 cores, 10 on AVX2-only).
    QVERIFY2(
        w.statusBar()->currentMessage().contains(
            QString("about %1-%2 minutes on 2 CPU cores").arg(q.cpu_minutes_avx512).arg(q.cpu_minutes_avx2)),
        qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.statusBar()->currentMessage().contains("about 4-10 minutes"));
    // For a look by eye (not compared): build/<preset>/screenshots/quick_start.png
    w.resize(1400, 900);
    QTest::qWait(100);
    w.grab().save(shotsDir() + "/quick_start.png");
  }

  void helpAndVersionNeedNoDisplay() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("QT_QPA_PLATFORM");  // and no DISPLAY: a QApplication would fail to start here
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    p.setProcessEnvironment(env);
    p.start(YW_GUI_PATH, {"--version"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardOutput().contains(ywb::kVersion));
    p.start(YW_GUI_PATH, {"--help"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray help = p.readAllStandardOutput();
    QVERIFY(help.contains("--quickstart"));
    QVERIFY(help.contains("data.yaml"));
  }
};

QTEST_MAIN(TestOpenPath)
#include "test_open_path.moc"
