// The Runs tab's pictures: the first selected run's plots (ours or Ultralytics'), listed in Ultralytics'
// order (results.png, confusion matrices, curves, then the rest by name) and shown scaled to fit. The
// pictures here are written by the test with sizes of its own, so what the view holds can be told apart; one
// results.png is the engine's own (ywb/plots.h), for the screenshot.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "run_pictures.h"
#include "runs_tab.h"
#include "support/screenshots.h"
#include "ywb/plots.h"
#include "ywb/results_csv.h"

namespace {

void writeImage(const QString& path, int w, int h, QColor colour) {
  QImage img(w, h, QImage::Format_RGB32);
  img.fill(colour);
  QVERIFY(img.save(path));
}

void writeResults(const QString& run, int epochs) {
  for (int e = 1; e <= epochs; ++e) {
    ywb::ResultsRow r;
    r.epoch = e;
    r.train_box = 2.0 / e;
    r.map = 0.1 * e;
    r.val_box = 1;  // validated
    ywb::appendResultsRow((run + "/results.csv").toStdString(), r);
  }
}

int rowOf(const QTableWidget* t, const QString& name) {
  for (int row = 0; row < t->rowCount(); ++row)
    if (t->item(row, 0)->text() == name) return row;
  return -1;
}

}  // namespace

class TestRunPictures : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void listsShowsAndSaysWhatIsWrong() {
    QTemporaryDir dir;
    const QString a = dir.path() + "/a", b = dir.path() + "/b";
    QVERIFY(QDir().mkpath(a) && QDir().mkpath(b));
    writeResults(a, 3);
    writeResults(b, 1);
    writeImage(a + "/val_batch0_pred.jpg", 64, 48, Qt::green);
    writeImage(a + "/train_batch0.jpg", 80, 80, Qt::blue);
    writeImage(a + "/labels.jpg", 50, 40, Qt::gray);
    writeImage(a + "/confusion_matrix.png", 120, 110, Qt::red);
    QFile broken(a + "/zz_broken.png");  // a picture that does not decode
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not a png");
    broken.close();
    QFile text(a + "/notes.txt");  // not a picture
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.close();
    const std::string results_png = ywb::writeResultsPlot((a + "/results.csv").toStdString());
    const QSize results_size = QImage(QString::fromStdString(results_png)).size();
    QVERIFY(!results_size.isEmpty());

    ywb::gui::RunsTab runs;
    runs.resize(1100, 800);
    runs.setRunsFolder(dir.path());
    runs.show();  // on the Curves tab: the pictures are listed, not decoded
    QVERIFY(QTest::qWaitForWindowExposed(&runs));
    const int row_a = rowOf(runs.table(), "a"), row_b = rowOf(runs.table(), "b");
    QVERIFY(row_a >= 0 && row_b >= 0);
    runs.table()->selectRow(row_a);
    QTest::qWait(50);
    QVERIFY(!runs.pictures()->loading());
    QVERIFY(runs.pictures()->view()->image().isNull());
    runs.views()->setCurrentWidget(runs.pictures());  // shown: decoded (on a worker thread)
    QTRY_VERIFY_WITH_TIMEOUT(!runs.pictures()->loading() && !runs.pictures()->view()->image().isNull(),
                             10000);

    const QComboBox* chooser = runs.pictures()->chooser();
    QStringList listed;
    for (int i = 0; i < chooser->count(); ++i) listed << chooser->itemText(i);
    // Ultralytics' first (results, confusion matrix), then by name; notes.txt is no picture
    QCOMPARE(listed, (QStringList{"results.png", "confusion_matrix.png", "labels.jpg", "train_batch0.jpg",
                                  "val_batch0_pred.jpg", "zz_broken.png"}));
    QCOMPARE(runs.pictures()->view()->image().size(), results_size);
    QCOMPARE(runs.pictures()->note()->text(),
             QString("%1 x %2").arg(results_size.width()).arg(results_size.height()));
    QTest::qWait(100);
    const QString shots = shotsDir();
    QVERIFY(runs.grab().save(shots + "/runs_pictures.png"));

    runs.pictures()->chooser()->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(!runs.pictures()->loading(), 10000);
    QCOMPARE(runs.pictures()->view()->image().size(), QSize(120, 110));
    QCOMPARE(runs.pictures()->view()->image().pixelColor(5, 5), QColor(Qt::red));
    runs.pictures()->chooser()->setCurrentIndex(5);
    QTRY_VERIFY_WITH_TIMEOUT(!runs.pictures()->loading(), 10000);
    QVERIFY(runs.pictures()->view()->image().isNull());
    QVERIFY2(runs.pictures()->note()->text().startsWith("cannot read zz_broken.png"),
             qPrintable(runs.pictures()->note()->text()));

    // a run without pictures says so
    runs.table()->selectRow(row_b);
    QCOMPARE(runs.pictures()->chooser()->count(), 0);
    QVERIFY(runs.pictures()->view()->image().isNull());
    QVERIFY(runs.pictures()->note()->text().contains("No pictures in this run"));
  }
};

QTEST_MAIN(TestRunPictures)
#include "test_run_pictures.moc"
