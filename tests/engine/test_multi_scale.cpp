// `multi_scale` (Ultralytics 8.4's float form): the sizes drawn for training batches (bounds, multiples of
// the stride, both ends reached, every size about equally often), the resized batch's shape and
// interpolation, the draw fixed by (seed, step); then short real runs with multi_scale=0.5 and cls_pw=0.5:
// every step trains at its drawn size, both arguments are in args.yaml, and a run stopped and resumed ends
// bit-identical to an uninterrupted one.
#include <torch/torch.h>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <map>
#include <set>

#include "io/safetensors.h"
#include "support/checkpoint_compare.h"
#include "support/tiny_run.h"
#include "train/checkpoint.h"
#include "train/multi_scale.h"
#include "ywb/trainer.h"

using ywb::MultiScale;

namespace {

// Every step's batch size as the progress line shows it, and the run's log.
class StepSizes : public ywb::TrainObserver {
 public:
  explicit StepSizes(ywb::Trainer* stop_after_first_epoch = nullptr) : trainer_(stop_after_first_epoch) {}
  void onStep(const ywb::StepMetrics& m) override {
    size[m.iteration] = m.imgsz;
    finite = finite && std::isfinite(m.box) && std::isfinite(m.cls) && std::isfinite(m.dfl);
  }
  void onEpoch(const ywb::EpochMetrics& m) override {
    if (trainer_ && m.epoch == 0) trainer_->requestStop();
  }
  void onLog(const std::string& line) override { log += line + "\n"; }
  std::map<int64_t, int> size;
  std::string log;
  bool finite = true;

 private:
  ywb::Trainer* trainer_;
};

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  qWarning("'%s' not found in:\n%s", part.c_str(), text.c_str());
  return false;
}

}  // namespace

class TestMultiScale : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void sizesAt640() {
    // imgsz 640, multi_scale 0.5, stride 32: raw sizes from randrange(max(32, int(640 x 0.5)),
    // int(640 x 1.5 + 32)) = [320, 992), floored to multiples of 32: 320, 352, ..., 960, 21 sizes, each from
    // 32 of the 672 raw values, so each drawn with probability 1/21.
    const MultiScale ms(640, 0.5, 32, 0);
    QCOMPARE(ms.low(), int64_t(320));
    QCOMPARE(ms.high(), int64_t(992));
    QCOMPARE(ms.maxSize(), 960);  // ceil(640 x 1.5 / 32) x 32: what AutoBatch sizes for
    std::map<int, int> seen;
    const int draws = 4200;
    for (int64_t step = 0; step < draws; ++step) {
      const int sz = ms.sizeFor(step);
      QVERIFY2(sz % 32 == 0 && sz >= 320 && sz <= 960, qPrintable(QString::number(sz)));
      ++seen[sz];
    }
    QCOMPARE(seen.begin()->first, 320);
    QCOMPARE(seen.rbegin()->first, 960);
    QCOMPARE(int(seen.size()), 21);
    // 200 expected per size; binomial sd sqrt(4200 x 1/21 x 20/21) = 13.8, so +/- 60 is over 4 sd.
    for (const auto& [sz, n] : seen)
      QVERIFY2(std::abs(n - 200) < 60, qPrintable(QString("%1: %2").arg(sz).arg(n)));
    // multi_scale 0.25: [int(640 x 0.75), int(640 x 1.25 + 32)) = [480, 832): 480 .. 800.
    const MultiScale quarter(640, 0.25, 32, 0);
    QCOMPARE(quarter.low(), int64_t(480));
    QCOMPARE(quarter.high(), int64_t(832));
    QCOMPARE(quarter.maxSize(), 800);
    // Off: every step at imgsz.
    const MultiScale off(640, 0.0, 32, 0);
    QVERIFY(!off.on());
    QCOMPARE(off.sizeFor(17), 640);
    QCOMPARE(off.maxSize(), 640);
    QVERIFY_THROWS_EXCEPTION(ywb::Error, MultiScale(640, 1.5, 32, 0));
  }

  void smallImagesFloorBelowTheRange() {
    // imgsz 96, multi_scale 0.5: raw [max(32, 48), int(144 + 32)) = [48, 176); the floor to 32 turns 48..63
    // into 32, below 96 x 0.5 (as the same floor does in Ultralytics). Sizes 32 .. 160.
    const MultiScale ms(96, 0.5, 32, 1);
    std::set<int> seen;
    for (int64_t step = 0; step < 500; ++step) seen.insert(ms.sizeFor(step));
    QCOMPARE(seen, (std::set<int>{32, 64, 96, 128, 160}));
    QCOMPARE(ms.maxSize(), 160);  // ceil(144 / 32) x 32
  }

  void theDrawIsTheSeedAndTheStep() {
    // A resumed run (or a rolled-back epoch) asks for the same steps again: the same sizes, from any
    // instance.
    const MultiScale a(640, 0.5, 32, 7), b(640, 0.5, 32, 7), other(640, 0.5, 32, 8);
    int differ = 0;
    for (int64_t step : {0, 1, 2, 99, 12345, 1000000}) QCOMPARE(b.sizeFor(step), a.sizeFor(step));
    for (int64_t step = 0; step < 100; ++step) differ += a.sizeFor(step) != other.sizeFor(step);
    QVERIFY2(differ > 50,
             qPrintable(QString::number(differ)));  // another seed, another sequence (20/21 differ)
  }

  void batchResizedAsAWhole() {
    // A 64 x 96 (H x W) batch drawn 160: scale 160 / 96; H -> ceil(64 x 160/96 / 32) x 32 = ceil(3.33) x 32 =
    // 128, W -> ceil(5) x 32 = 160.
    const MultiScale ms(96, 0.5, 32, 0);
    QCOMPARE(ms.resize(at::rand({2, 3, 64, 96}), 160).sizes().vec(), (std::vector<int64_t>{2, 3, 128, 160}));
    const at::Tensor same = at::rand({2, 3, 96, 96});
    QVERIFY(ms.resize(same, 96).is_same(same));  // scale 1: the batch itself
    // Bilinear with align_corners false: output column J samples input column max(0, (J + 0.5) / 2 - 0.5) for
    // a doubling; on a ramp whose value is the column index that is 0, 0.25, 0.75, ..., and the last column
    // (31.25) clamps to 31. (align_corners true would give column 1 the value 31/63.)
    const at::Tensor ramp =
        at::arange(32, at::kFloat).view({1, 1, 1, 32}).expand({1, 1, 32, 32}).contiguous();
    const at::Tensor up = ms.resize(ramp, 64);
    QCOMPARE(up.sizes().vec(), (std::vector<int64_t>{1, 1, 64, 64}));
    QCOMPARE(up[0][0][5][0].item<float>(), 0.f);
    QCOMPARE(up[0][0][5][1].item<float>(), 0.25f);
    QCOMPARE(up[0][0][40][2].item<float>(), 0.75f);
    QCOMPARE(up[0][0][63][63].item<float>(), 31.f);
    QVERIFY(MultiScale(96, 0.0, 32, 0).apply(same, 3).is_same(same));  // off: untouched
  }

  void trainsAtTheDrawnSizesAndResumesBitExact() {
    QTemporaryDir dir;
    ywb::test::TinyData d;
    d.train = 4;
    d.val = 4;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), d);
    // 4 images at batch 4: a step an epoch, 2 epochs, validated after the last only; an optimizer step every
    // batch. cuda_graphs=true asks for what multi_scale cannot have: the run says it trains eagerly.
    auto args = [&](const std::string& project) {
      ywb::TrainArgs a = ywb::test::withArgs(
          ywb::test::tinyRunArgs(data, dir.path().toStdString() + "/" + project), {{"multi_scale", "0.5"},
                                                                                   {"cls_pw", "0.5"},
                                                                                   {"batch", "4"},
                                                                                   {"nbs", "4"},
                                                                                   {"val", "false"},
                                                                                   {"cuda_graphs", "true"}});
      return a;
    };
    ywb::Trainer full(args("full"));
    StepSizes seen;
    full.setObserver(&seen);
    const ywb::TrainSummary a = full.run();
    QCOMPARE(a.epochs_completed, 2);
    QVERIFY(seen.finite);
    // Every step at the size drawn for (seed 1, step): imgsz 96 gives 32 .. 160
    // (smallImagesFloorBelowTheRange).
    const MultiScale ms(96, 0.5, 32, 1);
    QCOMPARE(seen.size.size(), size_t(2));
    bool resized = false;
    for (const auto& [step, sz] : seen.size) {
      QCOMPARE(sz, ms.sizeFor(step));
      resized = resized || sz != 96;
    }
    QVERIFY(resized);  // seed 1's two steps are not both 96 (so the resize did run)
    QVERIFY(has(seen.log, "Class weights: ["));
    QVERIFY(has(seen.log, "cuda_graphs=true is off for this run: multi_scale=0.5"));
    QFile yaml(QString::fromStdString(a.run_dir) + "/args.yaml");
    QVERIFY(yaml.open(QIODevice::ReadOnly));
    const QByteArray text = yaml.readAll();
    QVERIFY2(text.contains("\nmulti_scale: 0.5\n") && text.contains("\ncls_pw: 0.5\n"), text.constData());

    // Stopped after epoch 1, resumed: epoch 2 draws the uninterrupted run's sizes; same weights bit for bit.
    ywb::Trainer first(args("split"));
    StepSizes first_seen(&first);
    first.setObserver(&first_seen);
    const ywb::TrainSummary b1 = first.run();
    QVERIFY(b1.stopped);
    ywb::TrainArgs r;
    r.resume = b1.run_dir;
    ywb::Trainer resumed(r);
    StepSizes resumed_seen;
    resumed.setObserver(&resumed_seen);
    const ywb::TrainSummary b = resumed.run();
    QCOMPARE(b.epochs_completed, 2);
    QCOMPARE(resumed_seen.size.size(), size_t(1));
    for (const auto& [step, sz] : resumed_seen.size) QCOMPARE(sz, seen.size.at(step));
    const auto fa = ywb::readCheckpoint(a.last), fb = ywb::readCheckpoint(b.last);
    QVERIFY(ywb::test::samePrefix(fa, fb, "model."));
    QVERIFY(ywb::test::samePrefix(fa, fb, "ema."));
    QVERIFY(ywb::test::samePrefix(fa, fb, "optim."));
  }
};

QTEST_GUILESS_MAIN(TestMultiScale)
#include "test_multi_scale.moc"
