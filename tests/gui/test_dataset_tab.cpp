// The Dataset tab's class histogram on coco128 (80 classes): horizontal bars sorted by count whose names
// never overlap, at the window sizes people use; the counts add up to the scan's box count.
#include <qcustomplot.h>
#include <QDir>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include "class_histogram.h"
#include "dataset_tab.h"
#include "main_window.h"
#include "support/screenshots.h"

class TestDatasetTab : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_dataset_tab");
  }

  void histogramLabelsNeverOverlapOnCoco128() {
    ywb::gui::MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* ds = w.dataset();
    QSignalSpy scanned(ds, &ywb::gui::DatasetTab::datasetScanned);
    ds->openDataset(QString(YW_SHARED_DIR) + "/datasets/coco128/data.yaml");
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 1, 60000);
    ywb::gui::ClassHistogram* h = ds->histogram();
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080), QSize(1000, 600)}) {
      w.resize(size);
      // Let the layout settle (the rows follow the axis rect's height after each replot).
      for (int i = 0; i < 5; ++i) {
        h->replot();
        QCoreApplication::processEvents();
      }
      const QStringList rows = h->rowLabels();
      QVERIFY(rows.size() >= 2);
      // Every train box is in exactly one row: coco128's README says 929 boxes in train.
      int sum = 0;
      for (int c : h->rowCounts()) sum += c;
      QCOMPARE(sum, 929);
      // Sorted by count, largest on top ("others" may sum more: it is last by construction).
      for (int i = 1; i + 1 < rows.size(); ++i) QVERIFY(h->rowCounts()[i - 1] >= h->rowCounts()[i]);
      // The tick labels: one per row, each a text line high at the axis' font; consecutive label centres at
      // least one line apart means no two overlap. Measured in pixels with the font's metrics.
      auto ticker = h->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
      QVERIFY(ticker);
      QCOMPARE(ticker->ticks().size(), rows.size());
      const QFontMetrics fm(h->yAxis->tickLabelFont());
      QList<double> centres;
      for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
        const double y = h->yAxis->coordToPixel(it.key());
        // Inside the axis rect, and the label's width fits the margin left of it.
        QVERIFY(y >= h->axisRect()->top() && y <= h->axisRect()->bottom());
        QVERIFY2(fm.horizontalAdvance(it.value()) < h->axisRect()->left(), qPrintable(it.value()));
        centres << y;
      }
      std::sort(centres.begin(), centres.end());
      for (int i = 1; i < centres.size(); ++i)
        QVERIFY2(centres[i] - centres[i - 1] >= fm.height(),
                 qPrintable(QString("%1x%2: labels %3 px apart, text %4 px high")
                                .arg(size.width())
                                .arg(size.height())
                                .arg(centres[i] - centres[i - 1])
                                .arg(fm.height())));
      qInfo("%dx%d: %d rows shown", size.width(), size.height(), int(rows.size()));
      // For a look by eye (not compared): build/<preset>/screenshots/dataset_WxH.png
      const QString shots = shotsDir();
      QVERIFY(w.grab().save(QString("%1/dataset_%2x%3.png").arg(shots).arg(size.width()).arg(size.height())));
    }
    // The top row is coco128's most frequent class, person, with its full name and count on hover.
    QCOMPARE(h->rowLabels().first(), QString("person"));
    const QPoint top(h->axisRect()->left() + 5, int(h->yAxis->coordToPixel(0)));
    QVERIFY2(h->toolTipAt(top).startsWith("person (class 0): "), qPrintable(h->toolTipAt(top)));
  }
};

QTEST_MAIN(TestDatasetTab)
#include "test_dataset_tab.moc"
