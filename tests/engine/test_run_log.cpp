// Every training run leaves its log in the run folder (<run>/train.log, engine/train/run_log.h): the lines
// `ywb train` prints into a pipe, line for line, under a line that starts each session; a resume appends to
// it; a run killed with SIGKILL leaves every line written before, none torn. Real `ywb train` processes on
// a tiny generated dataset (64 px, 8 images).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "cli_runner.h"
#include "support/tiny_run.h"
#include "ywb/train_log.h"

namespace {

QStringList fileLines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
  if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast();  // the file ends with a newline
  return lines;
}

QStringList outLines(const QByteArray& out) {
  QStringList lines = QString::fromUtf8(out).split('\n');
  if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast();
  return lines;
}

const QRegularExpression kSessionLine(R"(^=== \d{4}-\d\d-\d\d \d\d:\d\d:\d\d ywb \S+: (.*) ===$)");

}  // namespace

class TestRunLog : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  QString data_;

  QStringList trainArgs(const QString& name, int epochs) {
    return {"train",
            "data=" + data_,
            "project=" + tmp_.path() + "/runs",
            "name=" + name,
            "epochs=" + QString::number(epochs),
            "imgsz=64",
            "batch=4",
            "workers=1",
            "device=cpu",
            "amp=false",
            "close_mosaic=0"};
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    data_ = QString::fromStdString(ywb::test::tinyDataset(tmp_.path().toStdString(), {8, 4, 64}));
  }

  void logHoldsWhatTheCliPrintedAndGrowsOnResume() {
    const CliResult r = ywbRun(trainArgs("logged", 1));
    QVERIFY2(r.code == 0, r.err.constData());
    const QString run = tmp_.path() + "/runs/logged";
    const QStringList log = fileLines(run + "/" + ywb::kRunLogFile);
    QVERIFY2(log.size() > 5, qPrintable(log.join("\n")));
    // The first line starts the session; the rest is what the command printed into its pipe, line for line.
    const auto first = kSessionLine.match(log.front());
    QVERIFY2(first.hasMatch(), qPrintable(log.front()));
    QCOMPARE(first.captured(1), QString("training started"));
    QCOMPARE(log.mid(1), outLines(r.out));
    // What it holds: the run folder, the epoch's final progress line (no redraws: one line for epoch 1/1)
    // under its column header, the validation lines and the summary.
    QVERIFY(log.contains("run folder " + run));
    QCOMPARE(log.filter(QRegularExpression(R"(^\s+1/1\s)")).size(), 1);
    QCOMPARE(log.filter(QRegularExpression(R"(^\s+Epoch\s+mem\s+box_loss)")).size(), 1);
    QCOMPARE(log.filter(QRegularExpression(R"(^\s+Box\(P\s+R\s+mAP50)")).size(), 1);
    QVERIFY(log.back().startsWith("Results in " + run));

    // Resumed for one more epoch: the first session's lines stay as they were, the second follows.
    const CliResult again = ywbRun({"train", "resume=" + run, "epochs=2"});
    QVERIFY2(again.code == 0, again.err.constData());
    const QStringList both = fileLines(run + "/" + ywb::kRunLogFile);
    QCOMPARE(both.mid(0, log.size()), log);
    const auto second = kSessionLine.match(both.value(log.size()));
    QVERIFY2(second.hasMatch(), qPrintable(both.value(log.size())));
    QCOMPARE(second.captured(1), QString("resumed at epoch 2"));
    QCOMPARE(both.mid(log.size() + 1), outLines(again.out));
    QCOMPARE(both.filter(QRegularExpression(R"(^\s+2/2\s)")).size(), 1);
  }

  void killedRunKeepsWhatItWrote() {
    // A long run killed (SIGKILL: no handler runs) once its first epoch is validated: the log holds that
    // epoch's lines and ends with a whole line.
    const QString run = tmp_.path() + "/runs/killed", path = run + "/" + ywb::kRunLogFile;
    QProcess p;
    p.start(YW_CLI_PATH, trainArgs("killed", 200));
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(fileLines(path).filter("Box(P").size() >= 1, 120000);
    ::kill(pid_t(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.endsWith('\n'));  // each event's lines are written whole
    const QStringList log = fileLines(path);
    QVERIFY(kSessionLine.match(log.front()).hasMatch());
    QCOMPARE(log.filter(QRegularExpression(R"(^\s+1/200\s)")).size(), 1);
    QVERIFY(!log.filter(QRegularExpression(R"(^Results in )")).size());  // it never finished
  }

  void readRunLogKeepsTheTail() {
    // readRunLog(dir, max_bytes): the last max_bytes, without the cut line at their start.
    QTemporaryDir dir;
    QFile f(dir.filePath(ywb::kRunLogFile));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("first line\nsecond line\nthird\n");  // 11 + 12 + 6 bytes
    f.close();
    bool found = false;
    // The last 15 of its 29 bytes are "ond line\nthird\n": the cut "ond line" is dropped, "third" kept.
    QCOMPARE(ywb::readRunLog(dir.path().toStdString(), 15, &found), std::vector<std::string>{"third"});
    QVERIFY(found);
    QCOMPARE(ywb::readRunLog(dir.path().toStdString(), 1000, &found),
             (std::vector<std::string>{"first line", "second line", "third"}));
    QTemporaryDir none;
    QVERIFY(ywb::readRunLog(none.path().toStdString(), 1000, &found).empty());
    QVERIFY(!found);
  }
};

QTEST_MAIN(TestRunLog)
#include "test_run_log.moc"
