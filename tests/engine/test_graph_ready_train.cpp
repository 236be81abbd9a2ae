// The trainer with the graph-ready step (graph_step=true: issue 33's CPU stand-in for a whole-step CUDA
// graph): the fixed-shape loss on targets padded to the run's capacity, and GraphReadyStep for the loss
// scale, optimizer and EMA, made after the run's first optimizer step and written back into the eager objects
// at the end of every epoch. Real sessions on a generated shapes set, driven epoch by epoch as the trainer
// drives them. Asserted, with where the expectations come from:
// - the same run eagerly and graph-ready (the whole step as one body with accumulate 1, SGD and AdamW; the
//   parts apart with accumulate 2) gives the same first-epoch losses to rounding (the loss and the step are
//   each equal to the eager ones within ~1e-6: test_graph_ready_loss, test_graph_ready_step), the same EMA
//   update count and AdamW step counts (one per optimizer step); the capacity the log names is the split's
//   largest image box count x 4 (Mosaic) rounded up to 8;
// - NaN batches (the trainer's poison hook) are skipped and counted by the device-held step as by the eager
//   one: 3 of 12 steps, 9 EMA updates, every saved tensor finite (test_nonfinite's eager expectations);
// - a graph-ready run resumed from its epoch-1 checkpoint ends bit for bit where the uninterrupted run ends
//   (so the state written back at the epoch's end is the whole state).
#include <torch/torch.h>
#include <QTemporaryDir>
#include <QtTest>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/torch_compat.h"
#include "data/target_capacity.h"
#include "io/safetensors.h"
#include "support/checkpoint_compare.h"
#include "support/tiny_run.h"
#include "train/checkpoint.h"
#include "train/checkpoint_state.h"
#include "train/lr_schedule.h"
#include "train/optimizer_factory.h"
#include "train/run_dir.h"
#include "train/train_session.h"

namespace {

// The trainer's test hooks with NaN inputs for the batches in `bad`.
class Hooks : public ywb::TrainHooks {
 public:
  explicit Hooks(std::set<int64_t> bad = {}) : bad_(std::move(bad)) {}
  bool poisonBatch() override { return bad_.count(n_++) > 0; }

 private:
  std::set<int64_t> bad_;
  int64_t n_ = 0;
};

class Recorder : public ywb::TrainObserver {
 public:
  void onLog(const std::string& l) override { logs.push_back(l); }
  std::vector<std::string> logs;
};

// A session set up as the trainer sets one up, with `hooks`; `resume`: its epoch-1 checkpoint.
struct Run {
  ywb::TrainSession s;
  Recorder rec;
  std::atomic<bool> stop{false}, pause{false};
  std::vector<std::array<double, 3>> losses;  // per epoch: box, cls, dfl

  Run(const ywb::TrainArgs& args, std::shared_ptr<Hooks> hooks, const std::string& run_dir = "",
      const ywb::SafetensorsFile* resume = nullptr) {
    s.args = args;
    s.observer = &rec;
    s.stop = &stop;
    s.pause = &pause;
    s.run_dir = run_dir.empty() ? ywb::makeRunDir(args.project, args.name, false) : run_dir;
    s.hooks = std::move(hooks);
    ywb::setupSession(s, resume);
  }
  // One epoch, then the trainer's own epoch-end learning-rate step.
  bool epoch(int e) {
    double tl[3], lr[3];
    const bool ok = ywb::trainEpoch(s, e, tl, lr);
    losses.push_back({tl[0], tl[1], tl[2]});
    for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j)
      ywb::setGroupLr(*s.optimizer, j,
                      s.initial_lr * ywb::lrFactor(e + 1, s.epochs, s.args.lrf, s.args.cos_lr));
    return ok;
  }
  std::string checkpoint(const std::string& path) {
    ywb::CheckpointParts p;
    p.model = s.model.ptr().get();
    p.ema = s.ema_model.ptr().get();
    p.optimizer = s.optimizer.get();
    ywb::saveCheckpoint(path, p);
    return path;
  }
  bool logged(const std::string& part) const {
    for (const auto& l : rec.logs)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

// graph_step=true; 48 images, batch 8: 6 optimizer steps per epoch (nbs = batch: accumulate 1, so every batch
// is a step).
ywb::TrainArgs args(const std::string& data, const std::string& project, const std::string& optimizer) {
  ywb::TrainArgs a = ywb::test::tinyRunArgs(data, project);
  a.batch = 8;
  a.nbs = 8;
  a.epochs = 2;
  a.optimizer = optimizer;
  a.imgsz = 64;
  a.graph_step = true;
  return a;
}

ywb::test::TinyData fortyEight() {
  ywb::test::TinyData d;
  d.train = 48;
  d.val = 8;
  return d;
}

int64_t adamSteps(torch::optim::Optimizer& opt) {  // AdamW's step count (all parameters alike); others: -1
  for (auto& g : opt.param_groups()) {
    if (g.params().empty()) continue;  // MuSGD has groups that may hold none
    auto* st = dynamic_cast<torch::optim::AdamWParamState*>(
        opt.state().at(ywb::compat::optimizerStateKey(opt.state(), g.params()[0])).get());
    return st ? st->step() : -1;
  }
  return -1;
}

}  // namespace

class TestGraphReadyTrain : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void sameRunAsEager_data() {
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<int>("accumulate");
    // accumulate 1: the whole step as one body (WholeStepGraph, eager here); 2: the step's parts apart
    QTest::newRow("SGD, whole step") << QString("SGD") << 1;
    QTest::newRow("AdamW, whole step") << QString("AdamW") << 1;
    QTest::newRow("SGD, accumulate 2") << QString("SGD") << 2;
    QTest::newRow("MuSGD, whole step") << QString("MuSGD") << 1;
  }
  void sameRunAsEager() {
    QFETCH(QString, optimizer);
    QFETCH(int, accumulate);
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    ywb::TrainArgs a = args(data, dir.path().toStdString(), optimizer.toStdString());
    a.nbs = a.batch * accumulate;             // accumulate = nbs / batch
    if (accumulate > 1) a.warmup_epochs = 0;  // warmup would ramp it up from 1 over 100 iterations
    ywb::TrainArgs eager_args = a;
    eager_args.graph_step = false;
    Run eager(eager_args, std::make_shared<Hooks>());
    Run graph(a, std::make_shared<Hooks>());
    for (int e = 0; e < 2; ++e) {
      QVERIFY(eager.epoch(e));
      QVERIFY(graph.epoch(e));
      for (int k = 0; k < 3; ++k) {
        const double x = graph.losses[size_t(e)][size_t(k)], y = eager.losses[size_t(e)][size_t(k)];
        qInfo("epoch %d item %d: graph-ready %.7f, eager %.7f, relative %.2g", e + 1, k, x, y,
              std::abs(x - y) / y);
        QVERIFY(std::isfinite(x) && x > 0);
        // Epoch 1: rounding-level differences (at most 9e-7 measured, 2026-11-26); a bookkeeping error (a
        // wrong rate, a lost momentum or step count, a missed skip) moves a loss by far more. Later epochs
        // are not compared: two runs apart by float rounding part through the assignment's discrete choices
        // (an anchor whose alignment metric ties flips between positive and background): with accumulate 2,
        // epoch 2's parameters went from 1e-6 apart to 6e-4 in one step and its box loss 1% apart, with both
        // runs on the same fixed-shape loss and the steps before it at rounding level.
        // MuSGD: its bfloat16 Newton-Schulz magnifies rounding (test_graph_ready_step), hence 1e-3.
        const double tolerance = optimizer == "MuSGD" ? 1e-3 : 1e-4;
        if (e == 0) QVERIFY2(std::abs(x - y) <= tolerance * y, "epoch 1's loss differs from the eager run's");
      }
    }
    const int64_t steps = 12 / accumulate;  // 12 batches in 2 epochs
    QCOMPARE(graph.s.ema->updates(), steps);
    QCOMPARE(graph.s.whole_step, accumulate == 1);
    QCOMPARE(graph.s.ema->updates(), eager.s.ema->updates());
    QCOMPARE(adamSteps(*graph.s.optimizer), adamSteps(*eager.s.optimizer));
    QVERIFY(!graph.s.graph_step);  // written back and dropped at the epoch's end
    // the last epoch's graph-ready step: all its steps (only the run's very first step is eager)
    QCOMPARE(graph.s.graph_counts.stepped, steps / 2);
    const int64_t most = ywb::maxBoxesPerImage(*graph.s.train_split);
    const int64_t capacity = (most * 4 + 7) / 8 * 8;
    QVERIFY(most > 0);
    QVERIFY2(graph.logged("targets padded to " + std::to_string(capacity) + " boxes per image"),
             ("capacity " + std::to_string(capacity) + " not in the log").c_str());
    QVERIFY(!eager.logged("graph-ready step"));
  }

  void nanBatchesAreSkippedAndCounted() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    Run r(args(data, dir.path().toStdString(), "SGD"), std::make_shared<Hooks>(std::set<int64_t>{2, 7, 8}));
    QVERIFY(r.epoch(0));
    QCOMPARE(r.s.nonfinite.totalSkipped(), int64_t(1));
    QVERIFY(r.epoch(1));
    QCOMPARE(r.s.nonfinite.totalSkipped(), int64_t(3));
    QCOMPARE(r.s.ema->updates(), int64_t(9));  // 12 steps, 3 skipped
    for (const auto& l : r.losses)
      for (double v : l) QVERIFY(std::isfinite(v) && v > 0);  // the mean over the finite batches
    const ywb::SafetensorsFile f =
        ywb::readSafetensors(r.checkpoint(dir.path().toStdString() + "/c.safetensors"));
    for (const auto& [name, t] : f.tensors)
      if (t.is_floating_point()) QVERIFY2(t.isfinite().all().item<bool>(), name.c_str());
  }

  void resumeEndsWhereTheRunEnds() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), fortyEight());
    const ywb::TrainArgs a = args(data, dir.path().toStdString(), "auto");  // AdamW (short run)
    Run whole(a, std::make_shared<Hooks>());
    QVERIFY(whole.epoch(0));
    ywb::saveCheckpoints(whole.s, 1, false, "{}");
    const std::string last = whole.s.run_dir + "/weights/last.safetensors";
    QVERIFY(whole.epoch(1));
    const ywb::SafetensorsFile end =
        ywb::readSafetensors(whole.checkpoint(dir.path().toStdString() + "/a.safetensors"));

    ywb::TrainArgs ra = a;
    ra.resume = last;
    const ywb::SafetensorsFile ckpt = ywb::readCheckpoint(last);
    Run resumed(ra, std::make_shared<Hooks>(), whole.s.run_dir, &ckpt);
    QCOMPARE(resumed.s.start_epoch, 1);
    QVERIFY(resumed.epoch(1));
    const ywb::SafetensorsFile b =
        ywb::readSafetensors(resumed.checkpoint(dir.path().toStdString() + "/b.safetensors"));
    QCOMPARE(adamSteps(*resumed.s.optimizer), int64_t(12));
    QVERIFY(ywb::test::samePrefix(end, b, "model."));
    QVERIFY(ywb::test::samePrefix(end, b, "ema."));
    QVERIFY(ywb::test::samePrefix(end, b, "optim."));
    QCOMPARE(resumed.s.ema->updates(), whole.s.ema->updates());
  }
};

QTEST_GUILESS_MAIN(TestGraphReadyTrain)
#include "test_graph_ready_train.moc"
