// The Training dashboard driving the REAL engine: a short CPU run on a generated dataset, stopped after its
// first epoch and resumed, with a GUI-thread stall probe, hyperparameters set through the Hyperparameters
// tab, and a screenshot of every tab afterwards (saved under ${YW_BINARY_DIR}/screenshots/).
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <QListWidget>
#include <QTableWidget>

#include "augmentation_tab.h"
#include "box_image_view.h"
#include "dataset_tab.h"
#include "feature_maps_tab.h"
#include "hyperparams_tab.h"
#include "main_window.h"
#include "metric_chart.h"
#include "predictions_tab.h"
#include "runs_tab.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/synth.h"
#include "ywb/weights.h"

using ywb::gui::MainWindow;

namespace {

// Measures the longest gap between ticks of a 5 ms timer on the GUI thread: a stall shows up as a gap.
class StallProbe : public QObject {
 public:
  StallProbe() {
    timer_.setInterval(5);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const qint64 ns = clock_.nsecsElapsed();
      if (last_ >= 0) {
        const double gap_ms = double(ns - last_) / 1e6;
        max_ms_ = std::max(max_ms_, gap_ms);
        if (gap_ms > 50) ++over_50_;
        ++ticks_;
      }
      last_ = ns;
    });
    clock_.start();
    timer_.start();
  }
  double maxMs() const { return max_ms_; }
  int over50() const { return over_50_; }
  int ticks() const { return ticks_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = -1;
  double max_ms_ = 0;
  int over_50_ = 0, ticks_ = 0;
};

}  // namespace

class TestTrainingTab : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_training_tab");
    QVERIFY(tmp_.isValid());
    ywb::SynthOptions o;
    o.out = (tmp_.path() + "/shapes").toStdString();
    o.train = 16;
    o.val = 8;
    o.imgsz = 96;
    o.workers = 2;
    data_ = QString::fromStdString(ywb::synthesizeDataset(o).data_yaml);
    QVERIFY(QFileInfo::exists(data_));
  }

  void runStopResumeAndScreenshots() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* hyper = w.hyperparams();
    // The brief's tiny run: 16/8 images at 96 px, 3 epochs of 2 batches; the last epoch without Mosaic.
    const QList<QPair<QString, QString>> settings = {
        {"data", data_},   {"epochs", "3"},       {"batch", "8"},
        {"workers", "2"},  {"amp", "false"},      {"imgsz", "96"},
        {"device", "cpu"}, {"close_mosaic", "1"}, {"project", tmp_.path() + "/runs"},
        {"name", "gui"},   {"warmup_epochs", "0"}};
    for (const auto& kv : settings) QVERIFY2(hyper->setValue(kv.first, kv.second), qPrintable(kv.first));
    QVERIFY(hyper->modified().contains("epochs"));

    auto* tab = w.training();
    auto* ctl = tab->controller();
    w.tabs()->setCurrentWidget(tab);
    QSignalSpy epochs(ctl, &ywb::gui::TrainingController::epochFinished);
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);

    StallProbe probe;
    tab->startTraining();
    QVERIFY(ctl->running());
    // Stop once the first epoch has been validated: `last` must then be a valid checkpoint.
    QTRY_VERIFY_WITH_TIMEOUT(epochs.count() >= 1 || !failed.isEmpty(), 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    tab->stopTraining();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 60000);
    QCOMPARE(finished.count(), 1);
    const auto first = finished.first().first().value<ywb::TrainSummary>();
    QVERIFY(first.stopped);
    QVERIFY(tab->phasesSeen().contains("stopped"));
    const QString run_dir = tab->lastRunDir();
    const QString last = run_dir + "/weights/last.safetensors";
    QVERIFY2(QFileInfo::exists(last), qPrintable(last));
    const ywb::WeightsInfo info = ywb::inspectWeights(last.toStdString());  // throws when not valid
    QVERIFY(!info.tensors.empty());
    const int train_points = tab->chart("trainLoss")->points(0);
    QVERIFY(train_points >= 1);
    QVERIFY(tab->chart("map")->points(0) >= 1);

    // Resume: the run continues to its 3 epochs and the charts keep growing.
    tab->resumeRun(run_dir);
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 2, 150000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 2);
    const auto second = finished.last().first().value<ywb::TrainSummary>();
    QVERIFY(!second.stopped);
    QCOMPARE(second.epochs_completed, 3);
    QCOMPARE(epochs.last().first().value<ywb::EpochMetrics>().epoch, 2);  // 0-based: the third epoch
    QVERIFY(tab->chart("trainLoss")->points(0) > train_points);
    QCOMPARE(tab->chart("map")->points(0), 3);  // one validated point per epoch, across stop and resume
    QVERIFY(tab->chart("lr")->points(1) > 0);
    QVERIFY(tab->chart("speed")->points(0) > 0);
    for (const char* p :
         {"scanning data", "building model", "training", "validating", "close mosaic", "finished"})
      QVERIFY2(tab->phasesSeen().contains(p), p);
    QVERIFY(tab->phaseLabel()->text().startsWith("finished"));

    qInfo("GUI-thread stall probe: %d ticks, longest gap %.1f ms, gaps over 50 ms: %d", probe.ticks(),
          probe.maxMs(), probe.over50());
    // The probe must have sampled the run (a 5 ms timer; on an idle machine the whole tiny run can take well
    // under a second, so only ask for a handful of ticks).
    QVERIFY(probe.ticks() > 10);
    QVERIFY2(probe.maxMs() < 50.0, qPrintable(QString("longest GUI-thread gap %1 ms").arg(probe.maxMs())));

    // The other tabs, fed by the run: dataset scan, augmentation preview, predictions, feature maps, runs.
    auto* ds = w.dataset();
    QSignalSpy scanned(ds, &ywb::gui::DatasetTab::datasetScanned);
    ds->openDataset(data_);
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 1, 30000);
    QVERIFY(scanned.first().first().toBool());
    QCOMPARE(ds->images()->count(), 16);     // the synthesized train split
    QVERIFY(ds->viewer()->boxCount() >= 1);  // every synthetic image holds 1..8 objects

    auto* aug = w.augmentation();
    w.tabs()->setCurrentWidget(aug);
    QTRY_VERIFY_WITH_TIMEOUT(aug->rendersDone() >= 1, 30000);
    const int before = aug->rendersDone();
    QVERIFY(hyper->setValue("fliplr", "1.0"));  // an edit in the Hyperparameters tab re-renders the grid
    QTRY_VERIFY_WITH_TIMEOUT(aug->rendersDone() > before, 30000);
    QCOMPARE(aug->params().fliplr, 1.0);
    qInfo("augmentation preview render: %.0f ms", aug->lastRenderMs());

    auto* pred = w.predictions();
    QSignalSpy validated(pred, &ywb::gui::PredictionsTab::validated);
    pred->validate();
    QTRY_VERIFY_WITH_TIMEOUT(validated.count() == 1, 60000);
    QVERIFY(validated.first().first().toBool());
    QCOMPARE(int(pred->report().detections.size()), 8);  // the val split
    QVERIFY(pred->classTable()->rowCount() > 0);

    auto* fm = w.featureMaps();
    QSignalSpy fm_shown(fm, &ywb::gui::FeatureMapsTab::shown);
    fm->setLayer(2);
    fm->compute();
    QTRY_VERIFY_WITH_TIMEOUT(fm_shown.count() >= 1, 60000);
    QVERIFY(fm_shown.last().first().toBool());
    QVERIFY(fm->stats()->rowCount() > 0);

    QCOMPARE(w.runs()->table()->rowCount(), 1);
    QCOMPARE(w.runs()->table()->item(0, 1)->text(), QString("3"));  // epochs in results.csv

    const QString shots = QString(YW_BINARY_DIR) + "/screenshots";
    QDir().mkpath(shots);
    QVERIFY(tab->exportCharts(shots + "/training_charts.pdf"));
    QVERIFY(QFileInfo(shots + "/training_charts.pdf").size() > 1000);
    for (int i = 0; i < w.tabs()->count(); ++i) {
      w.tabs()->setCurrentIndex(i);
      QTest::qWait(300);  // let queued replots and async renders land
      const QString name = w.tabs()->tabText(i).toLower().replace(' ', '_');
      QVERIFY(w.grab().save(shots + "/" + name + ".png"));
    }
  }

 private:
  QTemporaryDir tmp_;
  QString data_;
};

QTEST_MAIN(TestTrainingTab)
#include "test_training_tab.moc"
