// The trainer's whole run on a CUDA device (label cuda; skipped with the reason where there is none):
// training with fp16 AMP and the side-stream prefetcher, per-epoch validation in fp16, checkpoints, the
// final validation of best.pt; eager, with CUDA graphs, and with cuDNN's heuristics instead of its autotuner.
// On the first H100 run `ywb bench epoch` (the same run) died of SIGSEGV while `bench train` (the training
// steps alone) ran: this is the test that pins a whole run on a GPU down.
#include <torch/cuda.h>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>

#include "cuda/cuda_runtime.h"
#include "support/tiny_run.h"

class TestCudaTrain : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void wholeRunOnCuda_data() {
    QTest::addColumn<bool>("graphs");
    QTest::addColumn<bool>("autotuner");
    QTest::newRow("eager") << false << true;
    QTest::newRow("cuda graphs") << true << true;
    QTest::newRow("cuDNN heuristics (cudnn_benchmark=false)") << false << false;
  }

  void wholeRunOnCuda() {
    if (!ywb::cuda::compiledWithCuda()) QSKIP("no CUDA: this engine was built against a CPU-only LibTorch");
    if (!torch::cuda::is_available()) QSKIP("no CUDA: no CUDA device is visible to LibTorch");
    QFETCH(bool, graphs);
    QFETCH(bool, autotuner);
    QTemporaryDir dir;
    ywb::test::TinyData d;
    d.train = 64;
    d.val = 16;
    d.imgsz = 160;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), d);
    ywb::TrainArgs a = ywb::test::tinyRunArgs(data, dir.path().toStdString() + "/runs");
    a.device = "0";
    a.amp = true;
    a.imgsz = 160;
    a.batch = 16;
    a.epochs = 2;
    a.cuda_graphs = graphs;
    a.cudnn_benchmark = autotuner;
    ywb::Trainer trainer(a);
    const ywb::TrainSummary s = trainer.run();
    QCOMPARE(s.epochs_completed, 2);
    // The run trained as asked (the AMP check's heuristics scope handed the setting back): LibTorch's flag.
    QCOMPARE(ywb::cuda::cudnnBenchmark(), autotuner);
    QCOMPARE(QString::fromStdString(s.amp).left(4), QString("fp16"));  // the AMP check passed on the GPU
    QVERIFY(std::filesystem::exists(s.last));
    QVERIFY(std::filesystem::exists(s.best));
    // Validation ran and produced numbers (an untrained 2-epoch model: any finite mAP in [0, 1]).
    QVERIFY(std::isfinite(s.best_metrics.map50) && s.best_metrics.map50 >= 0 && s.best_metrics.map50 <= 1);
    QCOMPARE(s.nonfinite_steps, int64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestCudaTrain)
#include "test_cuda_train.moc"
