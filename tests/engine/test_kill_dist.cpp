// A world=2 Gloo run killed (issue 17, "Killed at any moment"), through `ywb train ... world=2` and its
// launcher, as a user runs it: (1) rank 1 is SIGKILLed during epoch 2: the job exits non-zero within the
// process-group timeout, naming rank 1, and rank 0 does not linger; (2) `ywb train resume=RUN` relaunches
// both ranks, and the launcher is SIGKILLed: both ranks stop with it (none trains on unwatched), rank 0
// saying why; (3) `ywb train resume=RUN` again finishes the run with both ranks.
#include <unistd.h>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <map>

#include "dist/process_group_factory.h"
#include "support/event_child.h"
#include "support/tiny_run.h"
#include "ywb/dist.h"
#include "ywb/results_csv.h"

namespace {

using ywb::TrainEvent;
using ywb::test::EventChild;
using ywb::test::StampedEvent;

// The processes whose parent is `launcher`, by their RANK variable (read from /proc).
std::map<int, pid_t> ranksOf(pid_t launcher) {
  std::map<int, pid_t> out;
  for (const QString& d : QDir("/proc").entryList(QDir::Dirs)) {
    bool ok = false;
    const int pid = d.toInt(&ok);
    QFile stat("/proc/" + d + "/stat"), env("/proc/" + d + "/environ");
    if (!ok || !stat.open(QIODevice::ReadOnly)) continue;
    const QByteArray s = stat.readAll();  // "pid (comm) state ppid ..."
    const QList<QByteArray> f = s.mid(s.lastIndexOf(')') + 2).split(' ');
    if (f.size() < 2 || f[1].toInt() != launcher || !env.open(QIODevice::ReadOnly)) continue;
    for (const QByteArray& kv : env.readAll().split('\0'))
      if (kv.startsWith("RANK=")) out[kv.mid(5).toInt()] = pid_t(pid);
  }
  return out;
}

// Running (not gone, not a zombie waiting for its parent).
bool alive(pid_t pid) {
  QFile stat(QString("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return false;
  const QByteArray s = stat.readAll();
  return s.mid(s.lastIndexOf(')') + 2, 1) != "Z";
}

// Waits up to `s` seconds for every pid of `ranks` to be gone.
bool allGone(const std::map<int, pid_t>& ranks, double s) {
  QElapsedTimer t;
  t.start();
  for (;;) {
    bool any = false;
    for (const auto& [r, pid] : ranks) any = any || alive(pid);
    if (!any) return true;
    if (t.elapsed() > s * 1000) return false;
    QTest::qWait(100);
  }
}

bool isStep(const StampedEvent& e) {
  return e.ev.kind == TrainEvent::Kind::Step;
}

QString fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class TestKillDist : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void killedRankOrLauncherThenResume() {
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {16, 8, 64, 3, 3});
    const QString run = dir.path() + "/ddp";
    const int timeout_s = 20;  // dist_timeout: bounds every collective, so a survivor cannot wait longer
    const QStringList args = {"train",      QString::fromStdString("data=" + data),
                              "imgsz=64",   "batch=4",
                              "workers=0",  "amp=false",
                              "device=cpu", "world=2",
                              "epochs=3",   "dist_timeout=" + QString::number(timeout_s),
                              "name=ddp",   "project=" + dir.path(),
                              "--json"};

    // (1) Rank 1 killed in epoch 2 (epoch 1's checkpoint written).
    {
      EventChild job(YW_CLI_PATH, args);
      QVERIFY2(
          job.waitFor([](const StampedEvent& e) { return e.ev.kind == TrainEvent::Kind::Epoch; }, 300) >= 0,
          qPrintable(job.errText()));
      QVERIFY2(job.waitFor(isStep, 120) >= 0, qPrintable(job.errText()));
      const std::map<int, pid_t> ranks = ranksOf(job.pid());
      QCOMPARE(int(ranks.size()), 2);
      QElapsedTimer since;
      since.start();
      ::kill(ranks.at(1), SIGKILL);
      const int code = job.finish((timeout_s + 60) * 1000);
      const qint64 took = since.elapsed();
      const QString err = job.errText();
      QCOMPARE(code, 128 + SIGKILL);  // the launcher exits with the first failing rank's status
      QVERIFY2(err.contains("distributed run failed: rank 1 was killed by signal 9"), qPrintable(err));
      QVERIFY2(err.contains("lost rank 1"), qPrintable(err));  // rank 0 names the rank it lost
      QVERIFY2(took < (timeout_s + 15) * 1000, qPrintable(QString::number(took)));
      QVERIFY(allGone(ranks, 5));
      qInfo("rank 1 killed: the job exited %d after %lld ms: %s", code, took,
            qPrintable(err.trimmed().split('\n').last()));
    }
    QVERIFY(QFile::exists(run + "/weights/last.safetensors"));

    // (2) Resumed with both ranks, then the launcher killed: its output goes to files so rank 0's last words
    // (written after the launcher is gone) can be read.
    {
      QProcess job;
      job.setStandardOutputFile(dir.path() + "/resume1.out");
      job.setStandardErrorFile(dir.path() + "/resume1.err");
      job.start(YW_CLI_PATH, {"train", "resume=" + run, "--json"});
      QVERIFY(job.waitForStarted());
      QElapsedTimer t;
      t.start();
      // the resumed run's first step: "resuming" is logged before it
      while (!fileText(dir.path() + "/resume1.out").contains("\"event\":\"step\"") && t.elapsed() < 300000 &&
             job.state() == QProcess::Running)
        QTest::qWait(50);
      const QString out = fileText(dir.path() + "/resume1.out");
      QVERIFY2(out.contains("\"event\":\"step\""), qPrintable(out + fileText(dir.path() + "/resume1.err")));
      QVERIFY2(out.contains("rank 0 of 2 (gloo"), qPrintable(out));
      const pid_t launcher = pid_t(job.processId());
      const std::map<int, pid_t> ranks = ranksOf(launcher);
      QCOMPARE(int(ranks.size()), 2);
      ::kill(launcher, SIGKILL);
      QVERIFY(job.waitForFinished(10000));
      QVERIFY(job.exitStatus() == QProcess::CrashExit);  // the job (its launcher) ended non-zero
      // Both ranks stop (SIGTERM from the kernel on their launcher's death; they agree at the next step).
      QVERIFY2(allGone(ranks, timeout_s + 30), "a rank trains on after its launcher was killed");
      const QString err = fileText(dir.path() + "/resume1.err");
      QVERIFY2(err.contains(QString("rank 0: its launcher (pid %1) is gone").arg(launcher)), qPrintable(err));
      qInfo("launcher killed: %s", qPrintable(err.trimmed().split('\n').last()));
    }

    // (3) Resumed again: both ranks, to the end.
    {
      EventChild job(YW_CLI_PATH,
                     {"train", "resume=" + run});  // text output: the launcher says what it starts
      const int code = job.finish(400000);
      QString out;
      for (const StampedEvent& e : job.events()) out += QString::fromStdString(e.line) + "\n";
      QVERIFY2(code == 0, qPrintable(out + job.errText()));
      QVERIFY2(job.errText().contains("starting 2 ranks"), qPrintable(job.errText()));
      QVERIFY2(out.contains("identical on all 2 ranks (max |difference| 0)"), qPrintable(out));
      const auto rows = ywb::readResults((run + "/results.csv").toStdString());
      QCOMPARE(int(rows.size()), 3);
      for (int i = 0; i < 3; ++i) QCOMPARE(rows[size_t(i)].epoch, i + 1);
    }
  }
};

QTEST_GUILESS_MAIN(TestKillDist)
#include "test_kill_dist.moc"
