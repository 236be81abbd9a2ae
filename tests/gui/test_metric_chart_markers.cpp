// MetricChart's marker labels (best epoch, Mosaic's close, warmup end) stay inside the plot area at the size
// the Training tab gives a chart on a 1366x768 screen (about 225x170 px): a marker at the right end, one at
// the left end, two at the same epoch (a 2-epoch run whose best epoch is the one Mosaic closed after) and
// the chart's note do not cut or cover one another; a marker scrolled out of view hides its label.
#include <QDir>
#include <QtTest>

#include "metric_chart.h"
#include "support/screenshots.h"

using ywb::gui::MetricChart;

namespace {

// A chart as the Training tab draws a finished run: one point per epoch 1..epochs.
MetricChart* runChart(QWidget* parent, int epochs) {
  auto* c = new MetricChart("mAP (COCO-exact)", "epoch", "mAP (0-1)", parent);
  const int s = c->addSeries("mAP50-95", MetricChart::color(0));
  for (int e = 1; e <= epochs; ++e) c->append(s, e, 0.3 * e / epochs);
  return c;
}

// Every visible label lies inside the plot area and overlaps no other label (nor the note).
void checkLabels(MetricChart* c, const QString& what) {
  const QRectF plot = c->axisRect()->rect();
  QList<QRectF> seen;
  for (int i = 0; i < c->markers().size(); ++i) {
    const QRectF r = c->markerLabelRect(i);
    QVERIFY2(!r.isEmpty(), qPrintable(what + ": label " + QString::number(i) + " not shown"));
    QVERIFY2(plot.contains(r),
             qPrintable(QString("%1: label '%2' at %3,%4 %5x%6 outside the plot %7,%8 %9x%10")
                            .arg(what, c->markers()[i].second)
                            .arg(r.x())
                            .arg(r.y())
                            .arg(r.width())
                            .arg(r.height())
                            .arg(plot.x())
                            .arg(plot.y())
                            .arg(plot.width())
                            .arg(plot.height())));
    if (!c->noteRect().isEmpty())
      QVERIFY2(!c->noteRect().intersects(r),
               qPrintable(what + ": label '" + c->markers()[i].second + "' covers the note"));
    for (const QRectF& o : seen)
      QVERIFY2(!o.intersects(r),
               qPrintable(what + ": label '" + c->markers()[i].second + "' covers another"));
    seen << r;
  }
}

}  // namespace

class TestMetricChartMarkers : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void labelsStayInsideThePlot() {
    QWidget host;
    host.resize(3 * 240, 180);
    // 30 epochs: Mosaic closed after epoch 20, best at the last epoch (the right edge), warmup ended at 3.05.
    MetricChart* wide = runChart(&host, 30);
    wide->addMarker(20, "close mosaic");
    wide->addMarker(30, "best");
    wide->addMarker(3.05, "warmup end");
    // 2 epochs: close mosaic after epoch 1 and best at epoch 1 (the left edge), both at one x.
    MetricChart* two = runChart(&host, 2);
    two->addMarker(1, "close mosaic");
    two->addMarker(1, "best");
    // A long label at the right edge of a chart that also has a note at its top right.
    MetricChart* note = runChart(&host, 6);
    note->addMarker(5.9, "warmup end (epoch 5.9)");
    // (the LR chart's note as a 2-epoch run shows it: longer than the plot is wide)
    const QString long_note = "groups differ in epochs 1.0-2.0; one line where they coincide";
    note->setNote(long_note);
    int x = 0;
    for (MetricChart* c : {wide, two, note}) {
      c->setGeometry(x, 0, 225, 170);
      x += 240;
      c->refresh();
    }
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    for (MetricChart* c : {wide, two, note}) c->replot();
    QVERIFY(host.grab().save(shotsDir() + "/metric_chart_markers.png"));
    checkLabels(wide, "30 epochs");
    checkLabels(two, "2 epochs");
    checkLabels(note, "with a note");
    // The note is elided to the plot's width (and not covered, checked above); note() has its whole text.
    QVERIFY2(QRectF(note->axisRect()->rect()).contains(note->noteRect()),
             qPrintable(QString("note %1 wide in a plot %2 wide")
                            .arg(note->noteRect().width())
                            .arg(note->axisRect()->rect().width())));
    QCOMPARE(note->note(), long_note);

    // Zoomed in on epochs 1..10: the markers at 20 and 30 are out of view and their labels hidden; the one at
    // 3.05 stays inside.
    wide->xAxis->setRange(1, 10);
    wide->replot();
    QVERIFY(wide->markerLabelRect(0).isEmpty());
    QVERIFY(wide->markerLabelRect(1).isEmpty());
    QVERIFY(QRectF(wide->axisRect()->rect()).contains(wide->markerLabelRect(2)));
  }
};

QTEST_MAIN(TestMetricChartMarkers)
#include "test_metric_chart_markers.moc"
