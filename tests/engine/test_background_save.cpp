// Checkpoints written in the background (train/background_save.h), as a GPU run writes them, here on the CPU
// through the test hook YWB_BACKGROUND_SAVES=1:
//  - a snapshot is the state at the moment it is taken: written after the live tensors changed, its file is
//    byte for byte the file the synchronous writer made before the change (channels-last weights, momentum,
//    gradients, a 0-dim buffer included);
//  - the saver hands a job's error to the next wait() or start(), once; its destructor waits;
//  - a whole run saving in the background leaves the same checkpoints as one saving synchronously: last
//    (epoch 3) and previous (epoch 2, written while epoch 3 trained) equal tensor for tensor.
#include <torch/torch.h>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "support/checkpoint_compare.h"
#include "support/tiny_run.h"
#include "train/background_save.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "ywb/trainer.h"

namespace {

std::string bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// YWB_BACKGROUND_SAVES set for one scope.
class BackgroundSaves {
 public:
  explicit BackgroundSaves(const char* value) { ::setenv("YWB_BACKGROUND_SAVES", value, 1); }
  ~BackgroundSaves() { ::unsetenv("YWB_BACKGROUND_SAVES"); }
};

}  // namespace

class TestBackgroundSave : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private Q_SLOTS:
  void snapshotIsTheStateWhenTaken() {
    torch::manual_seed(3);
    torch::nn::Sequential model(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)),
                                torch::nn::BatchNorm2d(8), torch::nn::Conv2d(8, 4, 1));
    torch::nn::Sequential ema(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)),
                              torch::nn::BatchNorm2d(8), torch::nn::Conv2d(8, 4, 1));
    for (auto& p : model->parameters())  // channels-last conv weights, as training on a GPU keeps them
      if (p.dim() == 4) p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast));
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    for (int i = 0; i < 2; ++i) {  // momentum buffers, BatchNorm's counter, gradients left in place
      opt.zero_grad();
      model->forward(torch::randn({2, 3, 10, 10}).contiguous(at::MemoryFormat::ChannelsLast))
          .square()
          .mean()
          .backward();
      opt.step();
    }
    model->forward(torch::randn({2, 3, 10, 10})).sum().backward();  // gradients being accumulated
    ywb::CheckpointParts parts{model.ptr().get(), ema.ptr().get(), &opt, true, {{"epoch", "7"}}};
    const std::string direct = dir_.path().toStdString() + "/direct.safetensors";
    const std::string later = dir_.path().toStdString() + "/later.safetensors";
    ywb::saveCheckpoint(direct, parts);  // tensor by tensor from the live state (the writer until now)
    const ywb::CheckpointContent snap = ywb::snapshotCheckpoint(parts);
    {
      torch::NoGradGuard no_grad;  // everything the file holds changes before the snapshot is written
      for (auto& p : model->parameters()) {
        p.add_(1.0);
        p.grad().mul_(3.0);
      }
      for (auto& b : model->buffers()) b.add_(1);
      for (auto& p : ema->parameters()) p.add_(1.0);
      opt.step();
    }
    ywb::saveCheckpoint(later, snap);
    const std::string a = bytesOf(direct), b = bytesOf(later);
    QVERIFY(a.size() > 1000);
    QVERIFY2(a == b, "the snapshot written later differs from the state it was taken of");
    // And the snapshot's tensors are host tensors of their own, in the file's (contiguous) layout.
    for (const auto& [name, t] : snap.tensors) {
      QVERIFY2(t.device().is_cpu() && t.is_contiguous(), name.c_str());
    }
    QCOMPARE(ywb::checkpointFileSize(snap), uint64_t(a.size()));
  }

  void saverHandsOverErrorsOnceAndWaits() {
    ywb::BackgroundSave saver;
    saver.wait();  // nothing started: nothing to wait for
    std::atomic<bool> ran{false};
    saver.start([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ran = true;
    });
    saver.wait();
    QVERIFY(ran);  // wait() returned only after the job
    saver.start([] { throw std::runtime_error("disk gone"); });
    bool second_ran = false;
    // start() waits for the failed job and rethrows its error instead of starting the next
    try {
      saver.start([&] { second_ran = true; });
      QFAIL("start() after a failed job did not rethrow its error");
    } catch (const std::runtime_error& e) {
      QCOMPARE(QString(e.what()), QString("disk gone"));
    }
    saver.wait();
    QVERIFY(!second_ran);
    saver.wait();  // the error was handed over once
    std::atomic<bool> done{false};
    {
      ywb::BackgroundSave s2;
      s2.start([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        done = true;
      });
    }  // the destructor waits
    QVERIFY(done);
  }

  void backgroundRunSavesWhatASynchronousRunSaves() {
    ywb::test::TinyData d;
    d.train = 16;
    d.val = 4;
    const std::string data = ywb::test::tinyDataset(dir_.path().toStdString(), d);
    ywb::TrainSummary runs[2];
    for (int background = 0; background < 2; ++background) {
      const BackgroundSaves env(background ? "1" : "0");
      ywb::TrainArgs a =
          ywb::test::tinyRunArgs(data, dir_.path().toStdString() + "/p" + std::to_string(background));
      a.epochs = 3;
      a.optimizer = "SGD";
      runs[background] = ywb::Trainer(a).run();
      QCOMPARE(runs[background].epochs_completed, 3);
    }
    for (const char* which : {"last", "previous"}) {
      const std::string name = std::string("/weights/") + which + ".safetensors";
      const auto s = ywb::readCheckpoint(runs[0].run_dir + name),
                 b = ywb::readCheckpoint(runs[1].run_dir + name);
      QVERIFY(b.checksummed);
      QCOMPARE(ywb::CheckpointFiles::verify(runs[1].run_dir + name).epoch,
               std::string(which) == "last" ? 3 : 2);
      for (const char* prefix : {"model.", "ema.", "optim."}) {
        QVERIFY2(ywb::test::samePrefix(s, b, prefix), (std::string(which) + " " + prefix).c_str());
        QVERIFY2(ywb::test::samePrefix(b, s, prefix), (std::string(which) + " " + prefix).c_str());
      }
      QCOMPARE(b.tensors.size(), s.tensors.size());  // gradients being accumulated, if any, are compared too
      for (const auto& [n, t] : s.tensors) QVERIFY2(b.contains(n) && t.equal(b.at(n)), n.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestBackgroundSave)
#include "test_background_save.moc"
