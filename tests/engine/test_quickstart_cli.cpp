// The quick start's command-line path (`ywb quickstart`, what installer/quickstart.sh runs without a display)
// in shortened form: the same verb and settings with a budget of one epoch, run as a user runs it.
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "ywb/quick_start.h"
#include "ywb/synth.h"

class TestQuickstartCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void shortRunPrintsTableAndPredictions() {
    QTemporaryDir tmp;
    const QString data = tmp.path() + "/shapes";
    const CliResult r =
        ywbRun({"quickstart", "dataset=" + data, "project=" + tmp.path() + "/runs", "epochs=1"}, 600000);
    QVERIFY2(r.code == 0, r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    // The dataset was generated where asked, with the quick-start sizes (ywb::quickStart owns them).
    const ywb::QuickStart q = ywb::quickStart(data.toStdString());
    QCOMPARE(QDir(data + "/images/train").entryList(QDir::Files).size(), q.dataset.train);
    // The time it announces is the quick start's measured minutes for all its epochs (4 on AVX-512 cores, 10
    // on AVX2-only ones) in proportion to the one epoch asked for: 4/80 min = 3 s, 10/80 min = 7.5 s.
    QCOMPARE(q.train.epochs, 80);
    QVERIFY2(out.contains("1 epochs at imgsz 160, device cpu (2 CPU cores: about 3-8 s)"), qPrintable(out));
    // The per-class table of the best epoch: its header and one row per shapes class (ywb::synthClassNames).
    QVERIFY2(out.contains(QRegularExpression("Class\\s+Instances\\s+P\\s+R\\s+mAP50\\s+mAP50-95")),
             qPrintable(out));
    for (const std::string& name : ywb::synthClassNames()) {
      const QRegularExpression row("^\\s+" + QRegularExpression::escape(QString::fromStdString(name)) +
                                       "\\s+\\d+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+$",
                                   QRegularExpression::MultilineOption);
      QVERIFY2(out.contains(row), qPrintable("no table row for " + QString::fromStdString(name)));
    }
    // The predictions folder is named and holds one annotated image per predicted validation image.
    const QRegularExpressionMatch m = QRegularExpression("Annotated images in (\\S+)").match(out);
    QVERIFY2(m.hasMatch(), qPrintable(out));
    const QDir pred(m.captured(1));
    QVERIFY(pred.exists());
    QCOMPARE(pred.entryList({"*.jpg", "*.png"}, QDir::Files).size(), q.predict_images);
    // Each predicted image's line counts what was found per class as `ywb predict` does ("2 stars, 1 ring",
    // "no detections"), then the best scores: "val_00001.jpg: 1 cross, 2 stars (cross 0.61, star 0.60, ...)".
    const QRegularExpression line(
        "^  \\S+\\.jpg: (no detections|\\d+ [a-z]+(, \\d+ [a-z]+)* \\([a-z]+ [0-9.]+(, "
        "[a-z]+ [0-9.]+)*(, \\.\\.\\.)?\\))$",
        QRegularExpression::MultilineOption);
    int lines = 0;
    for (auto it = line.globalMatch(out); it.hasNext(); it.next()) ++lines;
    QVERIFY2(lines == q.predict_images, qPrintable(out));
    // Three lines on what to do next: the GUI on the run, own data, export.
    QVERIFY(out.contains("yolo-workbench " + tmp.path() + "/runs/quickstart"));
    QVERIFY(out.contains("ywb train data="));
    // the pictures it points at are there (plots=true, the default)
    QVERIFY(out.contains("look at " + tmp.path() + "/runs/quickstart/results.png and confusion_matrix.png"));
    QVERIFY(QFile::exists(tmp.path() + "/runs/quickstart/results.png"));
    QVERIFY(QFile::exists(tmp.path() + "/runs/quickstart/confusion_matrix.png"));
    QVERIFY(out.contains("ywb export weights="));
  }
};

QTEST_GUILESS_MAIN(TestQuickstartCli)
#include "test_quickstart_cli.moc"
