// The default precision never makes CPU training slower (issue 35). Runs under YW_AVX2_ENV
// (tests/engine/train.cmake): oneDNN held to AVX2 has no bf16 instructions, as on the AVX2-only EPYC where
// bf16 autocast trained 12x slower than fp32 (3.7 against 50 images/s). Whatever this machine's own CPU, the
// run sees a CPU without native bf16. How it shows depends on the CPU under the limit: on a CPU with
// AVX-512, LibTorch 1.13 still sends bf16 convolutions to oneDNN (its own check reads the CPU's flags) and
// oneDNN, held to AVX2, has no kernel for them: autocast fails outright; on a real AVX2-only CPU LibTorch
// takes its slow reference convolution instead (the measured 12x). The trainer must choose fp32 either way;
// the decision for the slow case is checked on the issue's own figures below.
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "support/tiny_run.h"
#include "train/amp_speed.h"
#include "ywb/doctor.h"
#include "ywb/trainer.h"

namespace {

struct Run {
  ywb::TrainSummary summary;
  std::string log;
  std::vector<ywb::EpochMetrics> epochs;
};

class LogRecorder : public ywb::TrainObserver {
 public:
  void onLog(const std::string& line) override { log += line + "\n"; }
  void onEpoch(const ywb::EpochMetrics& m) override { epochs.push_back(m); }
  std::string log;
  std::vector<ywb::EpochMetrics> epochs;
};

Run train(const std::string& data, const std::string& project, const std::string& name, bool amp) {
  ywb::TrainArgs a = ywb::test::tinyRunArgs(data, project);
  a.name = name;
  a.imgsz = 128, a.batch = 16, a.epochs = 1, a.threads = 2;
  a.amp = amp;  // true: the default (amp_dtype=auto)
  ywb::Trainer t(a);
  LogRecorder rec;
  t.setObserver(&rec);
  Run r;
  r.summary = t.run();
  r.log = rec.log;
  r.epochs = rec.epochs;
  return r;
}

}  // namespace

class TestAmpChoice : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void avx2LimitIsNotNativeBf16() {
    // The environment holds oneDNN to AVX2, below its bf16 instructions, whatever the CPU's flags.
    const ywb::CpuBf16 c = ywb::cpuBf16Support();
    QVERIFY2(!c.native, c.summary.c_str());
    QVERIFY(c.summary.rfind("not native", 0) == 0);
  }

  void timingLeavesTheModelUntouched() {
    // The speed probe runs in eval mode and clears its gradients: BatchNorm statistics and parameters are
    // bit-identical afterwards, and no gradient is left for the first optimizer step to pick up.
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 6);
    m->train();
    std::vector<at::Tensor> before;
    for (const auto& t : m->buffers()) before.push_back(t.clone());
    for (const auto& t : m->parameters()) before.push_back(t.detach().clone());
    // Also after a bf16 pass that fails part way (oneDNN without bf16 kernels under the AVX2 limit here).
    const ywb::PrecisionSpeed sp = ywb::timePrecisions(*m, at::rand({1, 3, 64, 64}), at::kBFloat16);
    QVERIFY(sp.fp32_ms > 0);
    QVERIFY(sp.low_ms > 0 || !sp.low_error.empty());
    QVERIFY(m->is_training());
    size_t i = 0;
    for (const auto& t : m->buffers()) QVERIFY(at::equal(t, before[i++]));
    for (const auto& t : m->parameters()) {
      QVERIFY(at::equal(t.detach(), before[i++]));
      QVERIFY(!t.grad().defined());
    }
  }

  void probeIsSmallWhereBf16IsNotNative() {
    // Where bf16 is not native its passes run 7-12x slower than fp32's at any size, so the check's input is
    // 128 px there (3.9 s -> 0.6-1.0 s of every run's start on an AVX2 EPYC, docs/PERFORMANCE.md) and 256 px
    // where bf16 is native and its gain has to show.
    QCOMPARE(ywb::cpuProbeSide({false, "not native (AVX2, no avx512_bf16 or amx_bf16)"}), int64_t(128));
    QCOMPARE(ywb::cpuProbeSide({true, "native (avx512_bf16)"}), int64_t(256));
    // A 640x480 training image at 128 px: scale 0.2, each side down to a multiple of 32 (the largest
    // stride): 96 x 128; two images (a batch of one takes other kernels than training), float in [0, 1].
    const at::Tensor batch = at::full({3, 3, 480, 640}, 255, at::kByte);
    const at::Tensor x = ywb::precisionProbeInput(batch, at::kCPU, false, 128);
    QCOMPARE(x.sizes().vec(), (std::vector<int64_t>{2, 3, 96, 128}));
    QCOMPARE(x.scalar_type(), at::kFloat);
    QCOMPARE(x.max().item<float>(), 1.0f);
    // Already small enough: kept as it is.
    QCOMPARE(ywb::precisionProbeInput(batch.narrow(2, 0, 96).narrow(3, 0, 128), at::kCPU, false, 128)
                 .sizes()
                 .vec(),
             (std::vector<int64_t>{2, 3, 96, 128}));
    // The AMP check has one image: the second is its mirror image (column j of one is column 127 - j of the
    // other). A run of batch 1 times one image, as it trains.
    const at::Tensor one = at::arange(3 * 96 * 128).remainder(251).to(at::kByte).reshape({1, 3, 96, 128});
    const at::Tensor pair = ywb::precisionProbeInput(one, at::kCPU, false, 128);
    QCOMPARE(pair.size(0), int64_t(2));
    QVERIFY(at::equal(pair[0], one[0].to(at::kFloat) / 255.0));
    QCOMPARE(pair[1][2][5][0].item<float>(), pair[0][2][5][127].item<float>());
    QVERIFY(at::equal(pair[1], pair[0].flip({2})));
    QCOMPARE(ywb::precisionProbeInput(one, at::kCPU, false, 128, 1).size(0), int64_t(1));
  }

  void decisionFollowsTheMeasuredSpeed() {
    const ywb::CpuBf16 avx2{false, "not native (AVX2, no avx512_bf16 or amx_bf16)"};
    // The figures from `ywb bench train` on the AVX2 EPYC: bf16 3,983 ms per step, fp32 337 ms.
    ywb::PrecisionSpeed slow;
    slow.fp32_ms = 337, slow.low_ms = 3983;  // 11.8x slower
    ywb::CpuAmpDecision d = ywb::decideCpuAmp(slow, "bf16", false, avx2);
    QVERIFY(!d.use_low);
    QCOMPARE(d.note, std::string("off (fp32 chosen: bf16 11.8x slower on this CPU)"));
    QVERIFY2(d.log.find("AMP: training in fp32: bf16 11.82x slower than fp32 (3983.0 vs 337.0 ms") == 0,
             d.log.c_str());
    QVERIFY(d.log.find(avx2.summary) != std::string::npos);
    // Asked for explicitly (amp_dtype=bf16): honoured, with a warning that names the cost.
    d = ywb::decideCpuAmp(slow, "bf16", true, avx2);
    QVERIFY(d.use_low);
    QVERIFY2(d.log.find("AMP warning: amp_dtype=bf16 kept as asked, but bf16 11.82x slower") == 0,
             d.log.c_str());
    // Native bf16 (this project's AVX-512 EPYC, `ywb doctor`: 31.6 vs 42.6 ms): kept, nothing to warn about.
    ywb::PrecisionSpeed fast;
    fast.fp32_ms = 42.6, fast.low_ms = 31.6;
    d = ywb::decideCpuAmp(fast, "bf16", false, {true, "native (avx512_bf16)"});
    QVERIFY(d.use_low);
    QVERIFY(d.log.empty());
    QCOMPARE(ywb::describeSpeed(fast, "bf16"),
             std::string("bf16 1.35x faster than fp32 (31.6 vs 42.6 ms per forward+backward)"));
    // A low precision timed once (its first pass already 3x fp32's first): the figure says so.
    ywb::PrecisionSpeed once = slow;
    once.low_first_pass = true;
    QCOMPARE(ywb::describeSpeed(once, "bf16"),
             std::string("bf16 11.82x slower than fp32 (3983.0 vs 337.0 ms per forward+backward; bf16 timed "
                         "once, first pass)"));
    // Equal speed is not faster: fp32 (Ultralytics' precision on a CPU) wins a tie.
    ywb::PrecisionSpeed tie;
    tie.fp32_ms = tie.low_ms = 50;
    QVERIFY(!ywb::decideCpuAmp(tie, "bf16", false, avx2).use_low);
    // bf16 that does not run at all: fp32 even when asked for, and the log says why.
    ywb::PrecisionSpeed broken;
    broken.fp32_ms = 40, broken.low_error = "could not create a primitive descriptor iterator";
    d = ywb::decideCpuAmp(broken, "bf16", true, avx2);
    QVERIFY(!d.use_low);
    QVERIFY2(d.log.find(broken.low_error) != std::string::npos, d.log.c_str());
  }

  void defaultTrainsNoSlowerThanFp32() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {48, 8, 128});
    const std::string project = dir.path().toStdString();
    // Interleaved, the faster of two runs each: a shared 2-core machine's noise hits both alike.
    double fp32 = 0, dflt = 0;
    std::string note, log;
    Run off, on;
    for (int k = 0; k < 2; ++k) {
      off = train(data, project, "fp32_" + std::to_string(k), false);
      on = train(data, project, "default_" + std::to_string(k), true);
      fp32 = std::max(fp32, off.summary.images_per_s);
      dflt = std::max(dflt, on.summary.images_per_s);
      note = on.summary.amp;
      log = on.log;
    }
    qInfo("amp=false %.1f images/s, default %.1f images/s; default's AMP: %s", fp32, dflt, note.c_str());
    // The log names the precision chosen and why (the measured speed of both).
    QVERIFY2(log.find("AMP: training in fp32") != std::string::npos ||
                 log.find("AMP check passed: training in bf16") != std::string::npos,
             log.c_str());
    // Without native bf16 the default trains in fp32: the very computation amp=false runs, so the same losses
    // bit for bit (same seed, same data) -- the exact form of "not slower".
    QVERIFY2(note.rfind("off (", 0) == 0, note.c_str());
    QCOMPARE(on.epochs.size(), off.epochs.size());
    for (size_t e = 0; e < on.epochs.size(); ++e) {
      QCOMPARE(on.epochs[e].train_box, off.epochs[e].train_box);
      QCOMPARE(on.epochs[e].train_cls, off.epochs[e].train_cls);
    }
    // And the clock (the "say 1.2x"): 1.5x here, because one short epoch of each on a shared 2-core
    // machine varies by more than 1.2x between identical fp32 runs (measured: 9.1 against 5.6 images/s under
    // a parallel test); the slowdown this guards against is 12x.
    QVERIFY2(dflt * 1.5 >= fp32, note.c_str());
  }
};

QTEST_GUILESS_MAIN(TestAmpChoice)
#include "test_amp_choice.moc"
