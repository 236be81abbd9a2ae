// Whole distributed jobs through `ywb train world=2` (the launcher and its two rank processes, Gloo over
// loopback): both ranks end with identical weights (YOLOv8, YOLO11 and YOLO26, whose one-to-one head branches
// see detached features and train from their own loss term, with the same loss weights on every rank), pause
// and continue together, a resumed job relaunches its ranks, several ranks need the launcher, and a lost rank
// is named while the other exits in time.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <memory>
#include <vector>

#include "dist/process_group_factory.h"
#include "io/safetensors.h"
#include "support/dist_env.h"
#include "support/tiny_run.h"
#include "ywb/dist.h"

using ywb::test::rankEnv;

namespace {

std::string makeShapes(const QString& dir, int train, int val) {
  return ywb::test::tinyDataset(dir.toStdString(), {train, val, 64, 3, 3});
}

// `ywb train` arguments of a 2-rank CPU run on `data` (64 px, global batch 4, no loader threads, fp32),
// writing `project`/`name`, plus `extra`.
QStringList twoRankTrain(const std::string& data, const QString& project, const QString& name,
                         const QStringList& extra, const QString& model = "yolov8n.yaml") {
  return QStringList{"train",          QString::fromStdString("data=" + data),
                     "model=" + model, "imgsz=64",
                     "batch=4",        "workers=0",
                     "amp=false",      "device=cpu",
                     "world=2",        "project=" + project,
                     "name=" + name} +
         extra;
}

// Reads p's stdout into `out` until it contains `needle` (true), the process ends or `ms` pass (false).
bool readUntil(QProcess& p, QString& out, const QString& needle, int ms) {
  QElapsedTimer t;
  t.start();
  while (!out.contains(needle) && t.elapsed() < ms && p.state() == QProcess::Running) {
    p.waitForReadyRead(100);
    out += QString::fromUtf8(p.readAllStandardOutput());
  }
  return out.contains(needle);
}

}  // namespace

class TestDistTrain : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void trainerTwoRanksThroughTheLauncher_data() {
    QTest::addColumn<bool>("sync_bn");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("bn_layers");
    // Conv+BN blocks: yolov8n 57; yolo11n 81 (Ultralytics' yolo11n state dict has 81 `bn.weight` entries;
    // its DWConvs and the attention's convolutions are Convs too); yolo26n 114 (Ultralytics 8.4.52's yolo26n
    // state dict, ../shared/fixtures/ultralytics84/loss-yolo26n-shapes-seed0-e0.safetensors, has 114
    // `bn.weight` entries: 96 outside the head's one-to-one copies, 18 in them: one2one_cv2 2 Convs and
    // one2one_cv3 4 Convs at each of 3 levels).
    QTest::newRow("plain BatchNorm") << false << QString("yolov8n.yaml") << 57;
    QTest::newRow("SyncBatchNorm") << true << QString("yolov8n.yaml") << 57;
    QTest::newRow("SyncBatchNorm yolo11n") << true << QString("yolo11n.yaml") << 81;
    QTest::newRow("plain BatchNorm yolo26n") << false << QString("yolo26n.yaml") << 114;
    QTest::newRow("SyncBatchNorm yolo26n") << true << QString("yolo26n.yaml") << 114;
  }

  void trainerTwoRanksThroughTheLauncher() {
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QFETCH(bool, sync_bn);
    QFETCH(QString, model);
    QFETCH(int, bn_layers);
    QTemporaryDir dir;
    const std::string data = makeShapes(dir.path(), 8, 4);
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(
        YW_CLI_PATH,
        twoRankTrain(data, dir.path(), "ddp",
                     {"epochs=1", "dist_timeout=120", sync_bn ? "sync_bn=true" : "sync_bn=false"}, model));
    QVERIFY(p.waitForStarted());
    QVERIFY2(p.waitForFinished(400000), "ywb train world=2 did not finish");
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitCode() == 0, qPrintable(out + err));
    // Rank 0 alone wrote the run; its log confirms both ranks ended with the same weights.
    QVERIFY(QFile::exists(dir.path() + "/ddp/results.csv"));
    QVERIFY(QFile::exists(dir.path() + "/ddp/weights/last.safetensors"));
    QVERIFY(!QFile::exists(dir.path() + "/ddp2"));
    QVERIFY2(out.contains("identical on all 2 ranks (max |difference| 0)"), qPrintable(out + err));
    QVERIFY2(out.contains("rank 0 of 2 (gloo"), qPrintable(out));
    QCOMPARE(out.contains(QString("SyncBatchNorm in %1 layers").arg(bn_layers)), sync_bn);
    // Rank 0's checkpoint holds the EMA weights of every Conv+BN block (YOLO26's one-to-one copies too).
    const ywb::SafetensorsFile last =
        ywb::readSafetensors((dir.path() + "/ddp/weights/last.safetensors").toStdString());
    int ema_bn = 0;
    for (const auto& [key, t] : last.tensors)
      ema_bn +=
          key.rfind("ema.", 0) == 0 && key.size() > 9 && key.compare(key.size() - 9, 9, "bn.weight") == 0;
    QCOMPARE(ema_bn, bn_layers);
    // YOLO26: every rank trains the one epoch (epoch 0 of 1) with the schedule's first weights, o2m 0.8 and
    // o2o 1 - 0.8 (O2mSchedule; checked against rank 0's on every rank).
    const bool e2e = model.startsWith("yolo26");
    QCOMPARE(out.contains("distributed: epoch 1's end-to-end loss weights o2m 0.8 / o2o 0.2 on all 2 ranks"),
             e2e);
  }

  void pauseAndContinueAllRanks() {
    // `kill -USR1` on the launcher (what a GUI or a user does) pauses both ranks before the next step;
    // a second SIGUSR1 continues; the job then ends normally with identical weights on both ranks.
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QTemporaryDir dir;
    const std::string data = makeShapes(dir.path(), 16, 4);
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(YW_CLI_PATH, twoRankTrain(data, dir.path(), "pause", {"epochs=3", "dist_timeout=60", "--json"}));
    QVERIFY(p.waitForStarted());
    QString out;
    auto until = [&](const QString& needle, int ms) { return readUntil(p, out, needle, ms); };
    QVERIFY2(until("\"event\":\"step\"", 120000), qPrintable(out + p.readAllStandardError()));
    ::kill(pid_t(p.processId()), SIGUSR1);
    QVERIFY2(until("paused on all 2 ranks", 60000), qPrintable(out + p.readAllStandardError()));
    // While paused no step completes, for longer than the watchdog's heartbeat period (5 s without a
    // heartbeat would be "lost"); the pause itself must not look like a hang.
    const int steps_at_pause = int(out.count("\"event\":\"step\""));
    QTest::qWait(6000);
    out += QString::fromUtf8(p.readAllStandardOutput());
    QCOMPARE(int(out.count("\"event\":\"step\"")), steps_at_pause);
    QCOMPARE(p.state(), QProcess::Running);
    ::kill(pid_t(p.processId()), SIGUSR1);
    QVERIFY2(until("continuing on all 2 ranks", 60000), qPrintable(out));
    QVERIFY2(p.waitForFinished(300000), "ywb train world=2 did not finish after the pause");
    out += QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, qPrintable(out + p.readAllStandardError()));
    QVERIFY(out.count("\"event\":\"step\"") > steps_at_pause);
    QVERIFY2(out.contains("identical on all 2 ranks (max |difference| 0)"), qPrintable(out));
  }

  void resumedMultiRankRunRelaunchesItsRanks_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("yolov8n") << QString("yolov8n.yaml");
    QTest::newRow("yolo26n") << QString("yolo26n.yaml");
  }

  void resumedMultiRankRunRelaunchesItsRanks() {
    // A world=2 run stopped after its first epoch is resumed with `resume=RUN` alone: the process layout
    // comes from the checkpoint's arguments (resolveTrainArgs), so the launcher starts 2 ranks again instead
    // of continuing in one process. 16 images, global batch 4, 2 epochs.
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QFETCH(QString, model);
    QTemporaryDir dir;
    const std::string data = makeShapes(dir.path(), 16, 4);
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(YW_CLI_PATH, twoRankTrain(data, dir.path(), "res",
                                      {"epochs=2", "val=false", "dist_timeout=60", "--json"}, model));
    QVERIFY(p.waitForStarted());
    QString out;
    QVERIFY2(readUntil(p, out, "\"event\":\"epoch\"", 240000), qPrintable(out + p.readAllStandardError()));
    ::kill(pid_t(p.processId()), SIGTERM);  // the launcher forwards it; rank 0 saves `last`
    QVERIFY(p.waitForFinished(120000));
    const QString run = dir.path() + "/res";
    ywb::TrainArgs ask;
    ask.resume = run.toStdString();  // the caller's own device/world are the defaults (one process)
    const ywb::TrainArgs resolved = ywb::resolveTrainArgs(ask);
    QCOMPARE(resolved.world, 2);
    QCOMPARE(resolved.device, std::string("cpu"));
    QCOMPARE(resolved.resume, ask.resume);

    QProcess r;
    r.setProcessChannelMode(QProcess::SeparateChannels);
    r.start(YW_CLI_PATH, {"train", "resume=" + run});
    QVERIFY(r.waitForStarted());
    QVERIFY2(r.waitForFinished(300000), "resumed run did not finish");
    const QString rout = QString::fromUtf8(r.readAllStandardOutput());
    const QString rerr = QString::fromUtf8(r.readAllStandardError());
    QVERIFY2(r.exitCode() == 0, qPrintable(rout + rerr));
    QVERIFY2(rerr.contains("starting 2 ranks"), qPrintable(rerr));
    QVERIFY2(rout.contains("rank 0 of 2 (gloo"), qPrintable(rout));
    QVERIFY2(rout.contains("identical on all 2 ranks (max |difference| 0)"), qPrintable(rout));
    // YOLO26: the resumed session trains epoch 2 of 2 with the schedule's last weights on both ranks:
    // o2m = max(1 - 1/(2-1), 0) * (0.8 - 0.1) + 0.1 = 0.1, o2o = 1 - 0.1 = 0.9 (O2mSchedule).
    const bool e2e = model.startsWith("yolo26");
    QCOMPARE(rout.contains("distributed: epoch 2's end-to-end loss weights o2m 0.1 / o2o 0.9 on all 2 ranks"),
             e2e);
    QVERIFY2(!rout.contains("epoch 1's end-to-end"), qPrintable(rout));
  }

  void trainerRefusesSeveralRanksWithoutALauncher() {
    // world=2 asked of one process with no RANK/WORLD_SIZE around it: a clear refusal, not a one-process run.
    QVERIFY(qEnvironmentVariableIsEmpty("WORLD_SIZE"));
    ywb::TrainArgs a;
    a.data = "/nonexistent/data.yaml";
    a.device = "cpu";
    a.world = 2;
    ywb::Trainer trainer(a);
    try {
      trainer.run();
      QFAIL("expected a refusal");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("not started by a launcher"), e.what());
    }
  }

  void lostRankIsNamedAndTheOtherExits_data() {
    QTest::addColumn<int>("victim");
    QTest::addColumn<int>("signal");
    // SIGKILL: the process is gone (its sockets close). SIGSTOP: it hangs; only the timeout and the
    // missing heartbeats reveal it. Killing rank 0 also takes down the rendezvous store it hosts.
    QTest::newRow("rank 1 killed") << 1 << int(SIGKILL);
    QTest::newRow("rank 0 killed") << 0 << int(SIGKILL);
    QTest::newRow("rank 1 hangs") << 1 << int(SIGSTOP);
  }

  void lostRankIsNamedAndTheOtherExits() {
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QFETCH(int, victim);
    QFETCH(int, signal);
    const int survivor = 1 - victim;
    const int timeout_s = 20;  // dist_timeout: the survivor must be out well before timeout + 15 s
    QTemporaryDir dir;
    const std::string data = makeShapes(dir.path(), 16, 4);
    const int port = ywb::pickFreePort();
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < 2; ++r) {
      auto p = std::make_unique<QProcess>();
      p->setProcessEnvironment(rankEnv(r, 2, port));
      p->start(YW_CLI_PATH, {"train", QString::fromStdString("data=" + data), "imgsz=64", "batch=2",
                             "epochs=50", "workers=0", "amp=false", "device=cpu", "project=" + dir.path(),
                             "name=lost", "dist_timeout=" + QString::number(timeout_s), "--json"});
      QVERIFY(p->waitForStarted());
      ranks.push_back(std::move(p));
    }
    // Wait until rank 0 reports training steps (the others print nothing), then strike.
    QString out0;
    QElapsedTimer t;
    t.start();
    while (!out0.contains("\"step\"") && t.elapsed() < 240000) {
      ranks[0]->waitForReadyRead(1000);
      out0 += QString::fromUtf8(ranks[0]->readAllStandardOutput());
      QVERIFY2(ranks[0]->state() == QProcess::Running, qPrintable(out0 + ranks[0]->readAllStandardError()));
    }
    QVERIFY2(out0.contains("\"step\""), qPrintable(out0));
    ::kill(pid_t(ranks[size_t(victim)]->processId()), signal);
    QElapsedTimer since;
    since.start();
    QProcess& s = *ranks[size_t(survivor)];
    QVERIFY2(s.waitForFinished((timeout_s + 60) * 1000), "the surviving rank did not exit");
    const qint64 took = since.elapsed();
    const QString err = QString::fromUtf8(s.readAllStandardError());
    if (signal == SIGSTOP) ::kill(pid_t(ranks[size_t(victim)]->processId()), SIGKILL);
    ranks[size_t(victim)]->waitForFinished(10000);
    QVERIFY2(s.exitCode() != 0, qPrintable(err));
    QVERIFY2(err.contains("lost rank " + QString::number(victim)), qPrintable(err));
    QVERIFY2(err.contains("during "), qPrintable(err));
    QVERIFY2(took < (timeout_s + 15) * 1000, qPrintable(QString::number(took)));
    qInfo("rank %d stopped %lld ms after rank %d got signal %d: %s", survivor, took, victim, signal,
          qPrintable(err.trimmed()));
  }
};

QTEST_GUILESS_MAIN(TestDistTrain)
#include "test_dist_train.moc"
