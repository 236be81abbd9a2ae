// Resume from the GUI with more epochs (issue 17: "resume that cannot add epochs"): a run trained to its end
// from the Training tab is continued with a larger epoch count, as `ywb train resume=RUN epochs=N` does, and
// the charts and results.csv carry on from where it ended.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "metric_chart.h"
#include "support/tiny_run.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/results_csv.h"
#include "ywb/train_events.h"

class TestResumeExtend : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void finishedRunExtendedFromTheTrainingTab() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {16, 8, 64});
    ywb::gui::TrainingTab tab;
    tab.setArgsProvider([&] {
      ywb::TrainArgs a = ywb::test::tinyRunArgs(data, (dir.path() + "/runs").toStdString());
      return ywb::test::withArgs(a, {{"epochs", "1"}, {"imgsz", "64"}, {"name", "extend"}, {"threads", "1"}});
    });
    auto* ctl = tab.controller();
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);
    tab.startTraining();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.last().first().value<ywb::TrainSummary>().epochs_completed, 1);
    const QString run = tab.lastRunDir();

    // Asked for 3 epochs in all: the finished run trains epochs 2 and 3 in the same folder.
    tab.resumeRun(run, 3);
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 2, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 2);
    const auto s = finished.last().first().value<ywb::TrainSummary>();
    QCOMPARE(s.epochs_completed, 3);
    QVERIFY(!s.stopped);
    QCOMPARE(tab.lastRunDir(), run);
    QCOMPARE(int(ywb::readResults((run + "/results.csv").toStdString()).size()), 3);  // one row per epoch
    QCOMPARE(tab.chart("map")->points(0), 3);  // the chart carried on: one validated point per epoch

    // Without a new count a finished run has nothing left to do: it says so and how to extend it, and nothing
    // is trained.
    tab.resumeRun(run);
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 3, 60000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    const auto again = finished.last().first().value<ywb::TrainSummary>();
    QCOMPARE(again.epochs_completed, 3);
    QVERIFY2(again.stop_reason.find("epochs=") != std::string::npos, again.stop_reason.c_str());
    QCOMPARE(int(ywb::readResults((run + "/results.csv").toStdString()).size()), 3);
  }
};

QTEST_MAIN(TestResumeExtend)
#include "test_resume_extend.moc"
