// NaN/Inf recovery of the trainer (issue 17): a bad optimizer step is skipped and counted, ten in a row roll
// the run back once to the last checkpoint with half the learning rate, and a second burst stops the run
// with a message (the CLI exits non-zero). Faults are injected with the trainer's test hook: the chosen
// training batches get a NaN input, so the forward pass (BatchNorm statistics included), the loss and the
// gradients all turn NaN, as a corrupt input would make them.
#include <torch/torch.h>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "cli_runner.h"
#include "io/safetensors.h"
#include "support/checkpoint_compare.h"
#include "support/tiny_run.h"
#include "train/checkpoint.h"
#include "train/checkpoint_state.h"
#include "train/lr_schedule.h"
#include "train/nonfinite_rollback.h"
#include "train/optimizer_factory.h"
#include "train/run_dir.h"
#include "train/train_session.h"
#include "ywb/error.h"
#include "ywb/results_csv.h"
#include "ywb/trainer.h"

namespace {

// 48 training images: 6 batches of 8, or 12 of 4, per epoch.
ywb::test::TinyData fortyEight() {
  ywb::test::TinyData d;
  d.train = 48;
  d.val = 8;
  return d;
}

// With nbs = batch the optimizer steps after every batch (accumulate 1, also during warmup): one batch = one
// optimizer step, so the batch numbers below are step numbers.
ywb::TrainArgs stepPerBatch(const std::string& data, const std::string& project, int batch, int epochs) {
  ywb::TrainArgs a = ywb::test::tinyRunArgs(data, project);
  a.batch = batch;
  a.nbs = batch;
  a.epochs = epochs;
  a.optimizer = "SGD";  // lr0 as given (auto would choose its own)
  a.lr0 = 0.01;
  a.warmup_epochs = 0;  // lr = lr0 * lrFactor(epoch) in every step
  a.imgsz = 64;         // the smallest steps that still train: the faults, not the model, are under test
  return a;
}

class Recorder : public ywb::TrainObserver {
 public:
  void onEpoch(const ywb::EpochMetrics& m) override { epochs.push_back(m); }
  void onLog(const std::string& l) override { logs.push_back(l); }
  bool logged(const std::string& part) const {
    for (const auto& l : logs)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
  std::vector<ywb::EpochMetrics> epochs;
  std::vector<std::string> logs;
};

// Sets YWB_FAKE_NAN_BATCHES for one scope (the trainer's test hook reads it at every batch).
struct FakeNan {
  explicit FakeNan(const char* spec) { qputenv("YWB_FAKE_NAN_BATCHES", spec); }
  ~FakeNan() { qunsetenv("YWB_FAKE_NAN_BATCHES"); }
};

bool allFinite(const ywb::SafetensorsFile& f, const std::string& prefix) {
  int n = 0;
  for (const auto& [name, t] : f.tensors) {
    if (name.rfind(prefix, 0) != 0 || !t.is_floating_point()) continue;
    if (!t.isfinite().all().item<bool>()) {
      qWarning("%s is not finite", name.c_str());
      return false;
    }
    ++n;
  }
  return n > 0;
}

// Poisons the session's batches whose running number (from 0) is in the set.
class PoisonHooks : public ywb::TrainHooks {
 public:
  explicit PoisonHooks(std::set<int64_t> bad) : bad_(std::move(bad)) {}
  bool poisonBatch() override { return bad_.count(n_++) > 0; }

 private:
  std::set<int64_t> bad_;
  int64_t n_ = 0;
};

// The trainer's own epoch-end LR step (LambdaLR), for a session driven by hand.
void nextEpochLr(ywb::TrainSession& s, int epoch_done) {
  for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j)
    ywb::setGroupLr(*s.optimizer, j,
                    s.initial_lr * ywb::lrFactor(epoch_done + 1, s.epochs, s.args.lrf, s.args.cos_lr));
}

}  // namespace

class TestNonFinite : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void isolatedBadStepsAreSkippedAndCounted() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    // Batches 2 (epoch 1) and 7, 8 (epoch 2, its batches 2 and 3 counted from 1) are NaN.
    const FakeNan fake("2,7-8");
    ywb::Trainer t(stepPerBatch(data, dir.path().toStdString(), 8, 2));
    Recorder rec;
    t.setObserver(&rec);
    const ywb::TrainSummary s = t.run();
    QCOMPARE(s.epochs_completed, 2);
    QCOMPARE(s.nonfinite_steps, int64_t(3));
    QCOMPARE(s.nonfinite_rollbacks, 0);
    QCOMPARE(rec.epochs.size(), size_t(2));
    QCOMPARE(rec.epochs[0].nonfinite_steps, int64_t(1));
    QCOMPARE(rec.epochs[1].nonfinite_steps, int64_t(2));
    QVERIFY(rec.logged("1 optimizer step(s) skipped in epoch 1: NaN/Inf loss or gradients in batch(es) 3 "));
    QVERIFY(
        rec.logged("2 optimizer step(s) skipped in epoch 2: NaN/Inf loss or gradients in batch(es) 2-3 "));
    // The epoch's train loss is the mean over the finite batches.
    for (const auto& e : rec.epochs) QVERIFY(std::isfinite(e.train_box) && e.train_box > 0);
    // The final checkpoint: weights, EMA (BatchNorm statistics too: a NaN forward pass writes NaN into them
    // unless they are put back) and optimizer state finite; 12 steps, 3 skipped: 9 EMA updates.
    const ywb::SafetensorsFile f = ywb::readCheckpoint(s.last);
    QVERIFY(allFinite(f, "model."));
    QVERIFY(allFinite(f, "ema."));
    QVERIFY(allFinite(f, "optim."));
    const ywb::CheckpointState st = ywb::CheckpointState::fromMetadata(f.metadata, s.last);
    QCOMPARE(st.ema_updates, int64_t(9));
    QCOMPARE(st.lr_scale, 1.0);
    for (const auto& r : ywb::readResults(s.run_dir + "/results.csv")) QVERIFY(std::isfinite(r.train_box));
  }

  void rollbackRestoresTheCheckpointWithHalfTheLearningRate() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    std::atomic<bool> stop{false}, pause{false};
    ywb::TrainSession s;
    s.args = stepPerBatch(data, dir.path().toStdString(), 4, 3);  // 12 batches per epoch
    s.stop = &stop;
    s.pause = &pause;
    s.run_dir = ywb::makeRunDir(s.args.project, s.args.name, false);
    // Epoch 1 clean (batches 0-11); epoch 2: two good steps (12, 13) that change the weights after the
    // checkpoint, then ten bad ones (14-23); epoch 2 again after the rollback: clean (24-35); epoch 3: twelve
    // bad ones (36-47), the second burst.
    std::set<int64_t> bad;
    for (int64_t b = 14; b <= 23; ++b) bad.insert(b);
    for (int64_t b = 36; b <= 47; ++b) bad.insert(b);
    s.hooks = std::make_shared<PoisonHooks>(bad);
    ywb::setupSession(s, nullptr);
    double tl[3], lr[3];
    QVERIFY(ywb::trainEpoch(s, 0, tl, lr));
    nextEpochLr(s, 0);
    ywb::saveCheckpoints(s, 1, false, "{}");
    const std::string last = s.run_dir + "/weights/last.safetensors";
    const ywb::SafetensorsFile saved = ywb::readCheckpoint(last);

    QVERIFY(!ywb::trainEpoch(s, 1, tl, lr));  // ended by the burst, at its last batch
    QVERIFY(s.nonfinite.burst());
    QCOMPARE(s.nonfinite.totalSkipped(), int64_t(10));
    const std::string now = dir.path().toStdString() + "/now.safetensors";
    auto current = [&] {
      ywb::CheckpointParts p;
      p.model = s.model.ptr().get();
      p.ema = s.ema_model.ptr().get();
      p.optimizer = s.optimizer.get();
      ywb::saveCheckpoint(now, p);
      return ywb::readSafetensors(now);
    };
    // The two good steps moved the weights away from the checkpoint (so the comparison below can fail).
    QVERIFY(!ywb::test::samePrefix(saved, current(), "model."));
    QVERIFY(!ywb::test::samePrefix(saved, current(), "ema."));

    QCOMPARE(ywb::rollBackAfterNonFiniteBurst(s, 1), 1);  // epoch 2 (0-based 1) again
    const ywb::SafetensorsFile restored = current();
    QVERIFY(ywb::test::samePrefix(saved, restored, "model."));  // BatchNorm statistics included
    QVERIFY(ywb::test::samePrefix(saved, restored, "ema."));
    QVERIFY(ywb::test::samePrefix(saved, restored, "optim."));  // SGD momentum buffers
    QVERIFY(!s.nonfinite.burst());
    QCOMPARE(s.nonfinite.rollbacks(), 1);
    QCOMPARE(s.lr_scale, 0.5);
    // lr = 0.5 x lr0 x lrFactor(1): linear decay over 3 epochs to lrf 0.01 gives (1 - 1/3)(1 - 0.01) + 0.01
    // = 0.67 at epoch index 1, so 0.5 x 0.01 x 0.67 = 0.00335, in every parameter group.
    for (size_t j = 0; j < 3; ++j) QVERIFY(std::abs(ywb::groupLr(*s.optimizer, j) - 0.00335) < 1e-12);

    QVERIFY(ywb::trainEpoch(s, 1, tl, lr));  // clean this time, at the lower rate
    QVERIFY(std::abs(lr[1] - 0.00335) < 1e-12);
    nextEpochLr(s, 1);
    // lrFactor(2) = (1 - 2/3)(0.99) + 0.01 = 0.34: 0.5 x 0.01 x 0.34 = 0.0017.
    QVERIFY(std::abs(ywb::groupLr(*s.optimizer, 1) - 0.0017) < 1e-12);
    ywb::saveCheckpoints(s, 2, false, "{}");
    const ywb::CheckpointState st =
        ywb::CheckpointState::fromMetadata(ywb::readCheckpoint(last).metadata, last);
    QCOMPARE(st.lr_scale, 0.5);  // a resume keeps the lower rate
    QCOMPARE(st.nonfinite_rollbacks, 1);

    QVERIFY(!ywb::trainEpoch(s, 2, tl, lr));  // the second burst
    QVERIFY(s.nonfinite.burst());
    try {
      ywb::rollBackAfterNonFiniteBurst(s, 2);
      QFAIL("a second burst must stop the run");
    } catch (const ywb::Error& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("training stopped: 10 consecutive optimizer steps had a NaN/Inf loss") == 0, e.what());
      QVERIFY2(m.find("again after the rollback") != std::string::npos, e.what());
      QVERIFY2(m.find(last + " holds the last good weights") != std::string::npos, e.what());
    }
  }

  void burstRollsBackAndTheRunFinishesAtHalfTheRate() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    const FakeNan fake("14-23");  // as above: epoch 2's batches 3-12 (from 1)
    ywb::Trainer t(stepPerBatch(data, dir.path().toStdString(), 4, 2));
    Recorder rec;
    t.setObserver(&rec);
    const ywb::TrainSummary s = t.run();
    QCOMPARE(s.epochs_completed, 2);
    QCOMPARE(s.nonfinite_steps, int64_t(10));
    QCOMPARE(s.nonfinite_rollbacks, 1);
    QVERIFY(
        rec.logged("10 optimizer step(s) skipped in epoch 2: NaN/Inf loss or gradients in batch(es) 3-12 "));
    QVERIFY(
        rec.logged("rolled back to the end of epoch 1 (last.safetensors: model, EMA, optimizer and "
                   "schedule restored); learning rate x0.5 from here on"));
    // results.csv: epoch 2 once (the rolled-back attempt left no row), at half the scheduled rate:
    // lr0 x lrFactor(0) = 0.01, then 0.5 x 0.01 x ((1 - 1/2)(0.99) + 0.01) = 0.5 x 0.01 x 0.505 = 0.002525.
    const auto rows = ywb::readResults(s.run_dir + "/results.csv");
    QCOMPARE(rows.size(), size_t(2));
    QVERIFY(std::abs(rows[0].lr1 - 0.01) < 1e-9);
    QVERIFY(std::abs(rows[1].lr1 - 0.002525) < 1e-9);
    QVERIFY(std::isfinite(rows[1].train_box));
    const ywb::SafetensorsFile f = ywb::readCheckpoint(s.last);
    QVERIFY(allFinite(f, "model."));
    QVERIFY(allFinite(f, "ema."));
  }

  void secondBurstStopsTheCliWithAMessage() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    // First burst in epoch 2 (batches 14-23), rollback to epoch 1's checkpoint; epoch 2 again (batches
    // 24-35): its batches 26-35 are the second burst.
    const FakeNan fake("14-23,26-35");
    const CliResult r =
        ywbRun({"train", QString::fromStdString("data=" + data), "project=" + dir.path(), "name=nan",
                "epochs=3", "imgsz=64", "batch=4", "nbs=4", "workers=2", "device=cpu", "amp=false", "seed=1",
                "optimizer=SGD", "lr0=0.01", "warmup_epochs=0"},
               480000);
    QVERIFY2(r.code != 0 && r.code != -1, r.err.constData());
    QVERIFY2(r.out.contains("rolled back to the end of epoch 1"), r.out.constData());
    QVERIFY2(r.err.contains("training stopped: 10 consecutive optimizer steps had a NaN/Inf loss"),
             r.err.constData());
    QVERIFY2(r.err.contains("again after the rollback"), r.err.constData());
    // The last good checkpoint is intact and loadable; results.csv lists epoch 1 only.
    const std::string run = dir.path().toStdString() + "/nan";
    const ywb::SafetensorsFile f = ywb::readCheckpoint(run + "/weights/last.safetensors");
    QCOMPARE(ywb::CheckpointState::fromMetadata(f.metadata, "last").epoch, 1);
    QVERIFY(allFinite(f, "model."));
    QCOMPARE(ywb::readResults(run + "/results.csv").size(), size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestNonFinite)
#include "test_nonfinite.moc"
