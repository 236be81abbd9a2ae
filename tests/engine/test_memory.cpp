// Long runs do not leak, and validation does not fail a run that trains (issue 17).
// - Host RSS at the end of every epoch of a tiny CPU run (the engine's own SystemMonitor reading, VmRSS):
//   after epoch 10 it stays within 5% of its epoch-10 value. CI runs 20 epochs; tests/reliability/
//   rss_long_run.sh runs 300 (YWB_RSS_EPOCHS) and writes the curve (YWB_RSS_CSV) for docs/RELIABILITY.md.
// - Validation runs at twice the training batch (as Ultralytics'); when that runs out of memory, the trainer
//   halves the validation batch instead of failing the run (a GPU that runs out of memory is simulated with
//   the trainer's YWB_FAKE_OOM_ABOVE_BATCH hook; none here).
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "core/atomic_file.h"
#include "support/tiny_run.h"
#include "ywb/error.h"
#include "ywb/results_csv.h"
#include "ywb/system_monitor.h"
#include "ywb/trainer.h"

namespace {

int envInt(const char* name, int fallback) {
  const QByteArray v = qgetenv(name);
  bool ok = false;
  const int n = v.toInt(&ok);
  return ok && n > 0 ? n : fallback;
}

class RssPerEpoch : public ywb::TrainObserver {
 public:
  void onEpoch(const ywb::EpochMetrics&) override { rss.push_back(monitor.sample().process_rss); }
  ywb::SystemMonitor monitor;
  std::vector<int64_t> rss;  ///< bytes, at the end of each epoch (after validation and saving)
};

}  // namespace

class TestMemory : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void rssStaysFlatOverEpochs() {
    const int epochs = envInt("YWB_RSS_EPOCHS", 20);
    QVERIFY(epochs > 10);
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString());
    ywb::TrainArgs args = ywb::test::tinyRunArgs(data, dir.path().toStdString());
    args.epochs = epochs;  // validated every epoch, checkpoints every epoch, Mosaic closed for the last 10
    args.patience = epochs + 1;  // no early stop (300 epochs of the tiny set plateau long before)
    ywb::Trainer t(args);
    RssPerEpoch rec;
    t.setObserver(&rec);
    const ywb::TrainSummary s = t.run();
    QCOMPARE(s.epochs_completed, epochs);
    QCOMPARE(int(rec.rss.size()), epochs);
    const QByteArray csv = qgetenv("YWB_RSS_CSV");
    if (!csv.isEmpty()) {
      QFile f(QString::fromLocal8Bit(csv));
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("epoch,rss_bytes\n");
      for (size_t i = 0; i < rec.rss.size(); ++i)
        f.write(QByteArray::number(qlonglong(i + 1)) + "," + QByteArray::number(qlonglong(rec.rss[i])) +
                "\n");
    }
    const double base = double(rec.rss[9]);  // end of epoch 10
    const double peak = double(*std::max_element(rec.rss.begin() + 10, rec.rss.end()));
    const double last = double(rec.rss.back());
    qInfo(
        "host RSS: epoch 1 %.1f MB, epoch 10 %.1f MB, epoch %d %.1f MB (%+.2f%%), peak after epoch 10 %.1f "
        "MB "
        "(%+.2f%%)",
        double(rec.rss[0]) / 1e6, base / 1e6, epochs, last / 1e6, 100 * (last / base - 1), peak / 1e6,
        100 * (peak / base - 1));
    QVERIFY(last < base * 1.05);
    QVERIFY(peak < base * 1.05);
  }

  void validationOutOfMemoryHalvesTheValidationBatch() {
    // batch 8: training fits the simulated GPU (at most 8 images); validation's 2 x 8 = 16 does not (16
    // validation images make one batch of 16), so it runs again with 8 and the run goes on.
    QTemporaryDir dir;
    ywb::test::TinyData d;
    d.val = 16;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), d);
    ywb::TrainArgs args = ywb::test::tinyRunArgs(data, dir.path().toStdString());
    args.epochs = 2;
    struct Logs : ywb::TrainObserver {
      void onLog(const std::string& l) override { lines.push_back(l); }
      void onEpoch(const ywb::EpochMetrics& m) override { validated += m.validated; }
      std::vector<std::string> lines;
      int validated = 0;
    } logs;
    qputenv("YWB_FAKE_OOM_ABOVE_BATCH", "8");
    ywb::Trainer t(args);
    t.setObserver(&logs);
    ywb::TrainSummary s;
    try {
      s = t.run();
    } catch (const ywb::Error& e) {
      qunsetenv("YWB_FAKE_OOM_ABOVE_BATCH");
      QFAIL(e.what());
    }
    qunsetenv("YWB_FAKE_OOM_ABOVE_BATCH");
    QCOMPARE(s.epochs_completed, 2);
    QCOMPARE(logs.validated, 2);
    int halved = 0, retrained = 0;
    for (const auto& l : logs.lines) {
      halved += l ==
                "validation ran out of memory with batch 16: validating with batch 8 from now on (the "
                "training batch is unchanged)";
      retrained += l.find("retrying with batch=") != std::string::npos;
    }
    QCOMPARE(halved, 1);  // once: the smaller batch stays for epoch 2
    QCOMPARE(retrained, 0);
    QVERIFY(QString::fromStdString(ywb::readFile(s.run_dir + "/args.yaml")).contains("batch: 8"));
    QCOMPARE(ywb::readResults(s.run_dir + "/results.csv").size(), size_t(2));
  }
};

QTEST_GUILESS_MAIN(TestMemory)
#include "test_memory.moc"
