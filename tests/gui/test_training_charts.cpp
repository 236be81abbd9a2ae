// The Training tab's charts on a real CPU run: the warmup-end marker where the trainer's schedule says warmup
// ends, the learning-rate chart's one-line / three-line rule, and labels and legends that fit at common
// sizes.
#include <algorithm>
#include <cmath>

#include <QTemporaryDir>
#include <QtTest>

#include "metric_chart.h"
#include "support/tiny_run.h"
#include "training_controller.h"
#include "training_tab.h"

using ywb::gui::MetricChart;

class TestTrainingCharts : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_training_charts");
  }

  void warmupEndMarkerWhereTheTrainerSaysWarmupEnds() {
    // The trainer's rule (engine/train/lr_schedule.cpp warmupIterations, train_epoch.cpp): warmup lasts
    // max(round(warmup_epochs * batches_per_epoch), 100) iterations and iteration ni (0-based, global) is a
    // warmup step while ni <= that. Here: 20 train images, batch 1 -> 20 batches per epoch; warmup_epochs 2
    // -> max(40, 100) = 100 iterations, so the last warmup step is ni = 100 (epoch 5, batch 0), which ends
    // at x = epoch + (batch + 1) / batches = 5 + 1/20 = 5.05 on the charts' epoch axis. 6 epochs = 120 steps
    // (one thread: ~15-40 ms a step at 64 px; two threads on a loaded 2-core machine were 30x slower).
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {20, 2, 64});
    ywb::gui::TrainingTab tab;
    tab.setArgsProvider([&] {
      return ywb::test::withArgs(ywb::TrainArgs(), {{"data", data},
                                                    {"epochs", "6"},
                                                    {"batch", "1"},
                                                    {"imgsz", "64"},
                                                    {"workers", "1"},
                                                    {"device", "cpu"},
                                                    {"amp", "false"},
                                                    {"warmup_epochs", "2"},
                                                    {"val", "false"},
                                                    {"mosaic", "0"},
                                                    {"close_mosaic", "0"},
                                                    {"project", (dir.path() + "/runs").toStdString()},
                                                    {"name", "warmup"},
                                                    {"threads", "1"}});
    });
    QSignalSpy ended(tab.controller(), &ywb::gui::TrainingController::stoppedRunning);
    QSignalSpy failed(tab.controller(), &ywb::gui::TrainingController::failed);
    tab.startTraining();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 240000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(tab.chart("trainLoss")->points(0), 120);  // CPU runs report every step
    for (const char* name : {"trainLoss", "lr"}) {
      const auto markers = tab.chart(name)->markers();
      QCOMPARE(markers.size(), 1);  // no close-mosaic marker: close_mosaic=0
      QCOMPARE(markers[0].second, QString("warmup end"));
      QVERIFY2(qAbs(markers[0].first - 5.05) < 1e-9, qPrintable(QString::number(markers[0].first, 'g', 12)));
    }
    // Learning rates: one "all groups" line where the three groups share a rate, the three group lines where
    // they differ; every step is drawn by exactly one of the two. After warmup (x > 5.05) one schedule drives
    // all three groups, so only "all groups" is drawn there (19 steps: ni 101..119).
    MetricChart* lr = tab.chart("lr");
    QCOMPARE(lr->graph(0)->name(), QString("all groups"));
    QCOMPARE(lr->points(0), 120);
    int all = 0, groups = 0, after_warmup = 0;
    for (int k = 0; k < 120; ++k) {
      const double x = (lr->graph(0)->data()->constBegin() + k)->key;
      const double one = (lr->graph(0)->data()->constBegin() + k)->value;
      double g[3];
      for (int i = 0; i < 3; ++i) g[i] = (lr->graph(1 + i)->data()->constBegin() + k)->value;
      if (!std::isnan(one)) {
        ++all;
        after_warmup += x > 5.05 + 1e-9;
        for (double v : g) QVERIFY(std::isnan(v));
      } else {
        ++groups;
        QVERIFY2(x <= 5.05 + 1e-9, qPrintable(QString::number(x)));  // groups differ only in warmup
        QVERIFY(!std::isnan(g[0]) && !std::isnan(g[1]) && !std::isnan(g[2]));
        QVERIFY(std::max({g[0], g[1], g[2]}) - std::min({g[0], g[1], g[2]}) > 0);
      }
    }
    QCOMPARE(after_warmup, 19);
    QCOMPARE(all + groups, 120);
    QCOMPARE(lr->note().startsWith("groups differ in epochs"), groups > 0);
    qInfo("LR chart: %d steps as one line, %d as three", all, groups);
    // The warmup-end label near the right edge (5.05 of 6 epochs) stays inside the plot at a common size.
    tab.resize(1280, 800);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    for (const char* name : {"trainLoss", "lr"}) {
      MetricChart* c = tab.chart(name);
      c->replot();
      const QRectF label = c->markerLabelRect(0);
      QVERIFY2(QRectF(c->axisRect()->rect()).contains(label),
               qPrintable(QString("%1: label %2,%3 %4x%5 outside the plot %6..%7")
                              .arg(name)
                              .arg(label.x())
                              .arg(label.y())
                              .arg(label.width())
                              .arg(label.height())
                              .arg(c->axisRect()->left())
                              .arg(c->axisRect()->right())));
    }
    // Legends: every entry gets at least the width its icon and text need (none is cut) and lies inside its
    // chart; the LR legend lists the three group lines only because the groups differed. 1040 px wide: the
    // charts' width in the 1280x800 main window beside the System panel (~250 px each).
    tab.resize(1040, 800);
    QCoreApplication::processEvents();
    // (itemCount() counts the legend grid's cells, empty ones included: count the entries)
    auto entries = [](MetricChart* c) {
      int n = 0;
      for (int i = 0; i < c->legend->itemCount(); ++i) n += c->legend->item(i) != nullptr;
      return n;
    };
    QCOMPARE(entries(tab.chart("lr")), groups > 0 ? 4 : 1);
    for (MetricChart* c : tab.findChildren<MetricChart*>()) {
      c->replot();
      for (int i = 0; i < c->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = c->legend->item(i);
        if (!item) continue;  // an empty cell of the last row
        const QRect r = item->outerRect();
        QVERIFY2(r.width() >= item->minimumOuterSizeHint().width() && r.right() <= c->width(),
                 qPrintable(QString("%1: legend entry %2 is %3 px wide, needs %4 (chart %5 px)")
                                .arg(c->objectName())
                                .arg(i)
                                .arg(r.width())
                                .arg(item->minimumOuterSizeHint().width())
                                .arg(c->width())));
      }
    }
  }
};

QTEST_MAIN(TestTrainingCharts)
#include "test_training_charts.moc"
