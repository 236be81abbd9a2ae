// `ywb bench train` / `ywb bench epoch` in a tiny CPU configuration, so the benchmark suite never rots:
// the numbers themselves are not asserted (they depend on the machine), their internal consistency is.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>

#include "support/tiny_run.h"
#include "ywb/error.h"
#include "ywb/synth.h"
#include "ywb/train_bench.h"

class TestBenchTrain : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    data_ = ywb::test::tinyDataset(tmp_.path().toStdString(), {12, 4, 64});
  }

  void stepSplitIsConsistent() {
    ywb::TrainBenchOptions o;
    o.args = tinyArgs();
    o.warmup = 1;
    o.steps = 4;  // 12 images / batch 4 = 3 batches per epoch: the timed steps cross an epoch boundary
    // Nothing is written (there is no run folder): until round 3 the first batches' plots (plots=true, the
    // default) landed in the current folder.
    QVERIFY(o.args.plots);
    QTemporaryDir cwd;
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(cwd.path()));
    const ywb::TrainBenchResult r = ywb::benchTrain(o);
    QVERIFY(QDir::setCurrent(before));
    QVERIFY2(QDir(cwd.path()).isEmpty(), qPrintable(QDir(cwd.path()).entryList().join(", ")));
    QCOMPARE(r.mode, std::string("train"));
    QCOMPARE(r.steps, 4);
    QCOMPARE(r.device, std::string("cpu"));
    // Eight segments in step order; they partition the step, so their sum is the step time.
    const std::vector<std::string> names = {"data_wait", "h2d",       "forward", "loss",
                                            "backward",  "optimizer", "ema",     "log_sync"};
    QCOMPARE(r.split.size(), names.size());
    double sum = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      QCOMPARE(r.split[i].name, names[i]);
      QVERIFY(r.split[i].ms >= 0);
      sum += r.split[i].ms;
    }
    QVERIFY(std::abs(sum - r.step_ms) <= 1e-9 * r.step_ms);
    QVERIFY(r.split[2].ms > 0 && r.split[4].ms > 0);  // a forward and a backward always run
    // images/s = batch / step time (every step here has a full batch of 4).
    QVERIFY(std::abs(r.images_per_s - 4 * 1000.0 / r.step_ms) <= 1e-6 * r.images_per_s);
    QVERIFY(r.compute_images_per_s >= r.images_per_s);
    QVERIFY(r.data_wait_share >= 0 && r.data_wait_share <= 1);
    QVERIFY(r.peak_rss > 100 << 20);           // LibTorch alone maps more than 100 MiB
    QCOMPARE(r.peak_device_mem, int64_t(-1));  // CPU: no GPU readings
    QCOMPARE(r.gpu_util, -1.0);
  }

  void operatorsOfFurtherSteps() {
    // ops= records every LibTorch operator of `steps` further steps, after the timed ones.
    ywb::TrainBenchOptions o;
    o.args = tinyArgs();
    o.warmup = 1;
    o.steps = 2;
    o.ops = 4;
    o.trace = (tmp_.path() + "/ops/trace.json").toStdString();  // a missing folder is created
    const ywb::TrainBenchResult r = ywb::benchTrain(o);
    QCOMPARE(r.steps, 2);  // the recorded steps are not among the timed ones
    QCOMPARE(r.ops.steps, 2);
    QCOMPARE(r.ops.listed, 4);
    QCOMPARE(r.ops.trace, o.trace);
    QVERIFY(r.ops.recorded_step_ms > 0);
    std::map<std::string, ywb::OpTime> by_name;
    double self = 0;
    for (size_t i = 0; i < r.ops.ops.size(); ++i) {
      const ywb::OpTime& op = r.ops.ops[i];
      QVERIFY2(op.calls > 0 && op.self_ms >= 0 && op.self_ms <= op.total_ms + 1e-9, op.name.c_str());
      if (i) QVERIFY(r.ops.ops[i - 1].self_ms >= op.self_ms);  // most self time first
      self += op.self_ms;
      by_name[op.name] = op;
    }
    // On a CPU every operator of a step runs on the trainer thread (autograd runs the backward there too),
    // so the operators' self times are disjoint parts of the recorded steps' wall time (5% for the few
    // operators between the last step and the end of its epoch, which no step's time includes).
    QVERIFY2(self > 0 && self <= 1.05 * r.ops.recorded_step_ms,
             qPrintable(QString("self %1 ms of %2 ms").arg(self).arg(r.ops.recorded_step_ms)));
    // Each of the model's convolutions runs forward and backward once per step (the first one too: its
    // weight needs a gradient), so the two counts agree, and a YOLO model has dozens.
    QVERIFY(by_name.count("aten::convolution") && by_name.count("ConvolutionBackward0"));
    QCOMPARE(by_name["aten::convolution"].calls, by_name["ConvolutionBackward0"].calls);
    QVERIFY(by_name["aten::convolution"].calls > 20);
    // The Chrome trace holds every recorded range: as many events per operator as its calls in both steps,
    // their durations summing to its total time (no convolution runs inside another).
    QFile f(QString::fromStdString(o.trace));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray events = QJsonDocument::fromJson(f.readAll()).object().value("traceEvents").toArray();
    std::map<std::string, int> count;
    double conv_us = 0;
    for (const auto& v : events) {
      const QJsonObject e = v.toObject();
      QCOMPARE(e.value("ph").toString(), QString("X"));
      QVERIFY(e.value("ts").toDouble() >= 0 && e.value("dur").toDouble() >= 0);
      const std::string name = e.value("name").toString().toStdString();
      ++count[name];
      if (name == "aten::convolution") conv_us += e.value("dur").toDouble();
    }
    QCOMPARE(count.size(), by_name.size());
    for (const auto& [name, op] : by_name) QCOMPARE(double(count[name]), op.calls * 2);
    QVERIFY(std::abs(conv_us / 1000 - 2 * by_name["aten::convolution"].total_ms) < 0.01);
    // The table lists the first 4, and says how many more there are.
    const std::string text = ywb::trainBenchText(r);
    QVERIFY(text.find(r.ops.ops[3].name) != std::string::npos);
    QVERIFY(text.find("(" + std::to_string(r.ops.ops.size() - 4) + " more operators)") != std::string::npos);
    // bench epoch has no recorded steps to offer, and a negative count is refused.
    o.epoch_mode = true;
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::benchTrain(o));
    o.epoch_mode = false;
    o.ops = -1;
    o.trace.clear();
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::benchTrain(o));
  }

  void autoBatchOnCpuTakesTheDefault() {
    // batch=-1 on a CPU: AutoBatch needs a GPU's memory readings, so the run uses 16 (as Ultralytics).
    ywb::TrainBenchOptions o;
    o.args = tinyArgs();
    o.args.batch = -1;
    o.warmup = 0;
    o.steps = 1;
    QCOMPARE(ywb::benchTrain(o).batch, 16);
    ywb::TrainArgs bad = tinyArgs();
    QVERIFY_THROWS_EXCEPTION(ywb::Error, bad.set("batch", "-2"));
    bad.batch = 0;
    QVERIFY_THROWS_EXCEPTION(ywb::Error, bad.validate());
  }

  void epochSplitAndCleanup() {
    ywb::TrainBenchOptions o;
    o.args = tinyArgs();
    o.args.epochs = 1;
    o.epoch_mode = true;
    const ywb::TrainBenchResult r = ywb::benchTrain(o);
    QCOMPARE(r.epochs, 1);
    QVERIFY(r.train_s > 0 && r.val_s > 0 && r.save_s > 0 && r.setup_s > 0);
    // The phases partition the run's wall time up to what happens outside any phase (constructing and
    // destroying the Trainer, deleting the temporary folder): a small share even on a loaded machine.
    const double parts = r.setup_s + r.train_s + r.val_s + r.save_s;
    QVERIFY2(parts <= r.total_s + 1e-3 && parts >= 0.8 * r.total_s,
             qPrintable(QString("phases %1 s of %2 s").arg(parts).arg(r.total_s)));
    QVERIFY(r.train_images_per_s > 0);
    QVERIFY(r.map50 >= 0 && r.map50 <= 1);
    // The run's own split (engine/train/run_timing.h): 13 named segments plus "between_epochs", none
    // negative; together they are the run's wall time, which lies inside the bench's total and covers all of
    // it but the Trainer's construction/destruction and the folder cleanup (same bound as the phases).
    QCOMPARE(r.time_split.size(), size_t(14));
    QCOMPARE(QString::fromStdString(r.time_split.back().name), QString("between_epochs"));
    double split = 0;
    std::map<std::string, double> by_name;
    for (const auto& t : r.time_split) {
      QVERIFY2(t.seconds >= 0, t.name.c_str());
      split += t.seconds;
      by_name[t.name] = t.seconds;
    }
    QVERIFY2(split <= r.total_s + 1e-3 && split >= 0.8 * r.total_s,
             qPrintable(QString("split %1 s of %2 s").arg(split).arg(r.total_s)));
    // Work this run certainly did: steps, validation forward passes, a checkpoint write.
    QVERIFY(by_name["step"] > 0 && by_name["val_inference"] > 0 && by_name["checkpoint"] > 0);
    QVERIFY(r.process_start_s >= 0);  // read from /proc
    // Time to the first step (issue 33's start-up figure): after the run began (the process's start plus the
    // scan and the model build, both nonzero), before the run ended.
    QVERIFY2(r.first_step_s > r.process_start_s + by_name["scan"] + by_name["model_build"] &&
                 r.first_step_s < r.process_start_s + split,
             qPrintable(QString("first step %1 s, start %2 s, run %3 s")
                            .arg(r.first_step_s)
                            .arg(r.process_start_s)
                            .arg(split)));
    // The temporary run folder is gone.
    const QString tmp =
        QDir::tempPath() + "/ywb-bench-epoch-" + QString::number(QCoreApplication::applicationPid());
    QVERIFY(!QFileInfo::exists(tmp));
    QVERIFY2(r.leftover.empty(), r.leftover.c_str());  // and the result says so
  }

  void cliJsonAndBadInput() {
    QProcess p;
    p.start(YW_CLI_PATH, {"bench", "train", "data=" + QString::fromStdString(data_), "imgsz=64", "batch=4",
                          "workers=1", "device=cpu", "amp=false", "steps=1", "warmup=0", "--json"});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(j.value("mode").toString(), QString("train"));
    QCOMPARE(j.value("steps").toInt(), 1);
    QVERIFY(j.value("split").toObject().contains("forward_ms"));
    // Unknown key and missing data: clear errors, non-zero exit.
    p.start(YW_CLI_PATH, {"bench", "train", "data=" + QString::fromStdString(data_), "stpes=3"});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY(p.exitCode() != 0);
    QVERIFY(p.readAllStandardError().contains("stpes"));
    ywb::TrainBenchOptions o;
    o.args = tinyArgs();
    o.args.data = (tmp_.path() + "/missing/data.yaml").toStdString();
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::benchTrain(o));
  }

 private:
  ywb::TrainArgs tinyArgs() const {
    ywb::TrainArgs a = ywb::test::tinyRunArgs(data_, (tmp_.path() + "/runs").toStdString());
    a.imgsz = 64;
    a.batch = 4;
    a.workers = 1;
    a.warmup_epochs = 0;
    return a;
  }
  QTemporaryDir tmp_;
  std::string data_;
};

QTEST_GUILESS_MAIN(TestBenchTrain)
#include "test_bench_train.moc"
