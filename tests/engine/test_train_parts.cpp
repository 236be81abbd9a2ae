// Unit tests of the trainer's arithmetic: LR schedule and warmup, accumulation, parameter groups, the
// `auto` optimizer rule, EMA, the loss scaler, run folders and results.csv, training arguments, and AutoBatch
// (its search on a fake GPU's readings; its trial step, a real yolo26n step, under the real probe).
#include <torch/nn/utils/clip_grad.h>
#include <torch/torch.h>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include <malloc.h>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "loss/o2m_schedule.h"
#include "model/detection_model.h"
#include "train/auto_batch.h"
#include "train/auto_batch_step.h"
#include "train/epoch_decision.h"
#include "train/grad_clip.h"
#include "train/grad_scaler.h"
#include "train/lr_schedule.h"
#include "train/model_ema.h"
#include "train/optimizer_factory.h"
#include "ywb/error.h"

namespace {

// conv(no bias) -> BN -> conv(bias): the three Ultralytics parameter groups in miniature.
std::shared_ptr<torch::nn::SequentialImpl> tinyNet() {
  return std::make_shared<torch::nn::SequentialImpl>(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), torch::nn::BatchNorm2d(8),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 1).bias(true)));
}

// A GPU that cannot run here: memory = base + per_image * batch after a trial, out of memory above a size.
class FakeGpu : public ywb::AutoBatchProbe {
 public:
  FakeGpu(int64_t total, int64_t base, int64_t per_image, int oom_from)
      : total_(total), base_(base), per_image_(per_image), oom_from_(oom_from) {}
  int64_t totalBytes() override { return total_; }
  int64_t usedBytes() override { return used_; }
  void trial(int batch) override {
    trials.push_back(batch);
    if (oom_from_ > 0 && batch >= oom_from_) ywb::fail("CUDA out of memory. Tried to allocate 2.00 GiB");
    used_ = std::max(used_, base_ + per_image_ * batch);  // a caching allocator never shrinks
  }
  std::vector<int> trials;

 private:
  int64_t total_, base_, per_image_, used_ = 0;
  int oom_from_;
};

}  // namespace

class TestTrainParts : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void hostAllocatorKeepsTensorsInTheHeap() {
    // Every compute path calls configureTorchThreads first, which applies the allocator settings. With
    // glibc's defaults a 64 MiB block is always mmapped (it is above the largest dynamic mmap threshold,
    // 32 MiB), so mallinfo2's mmapped-bytes counter would grow by at least 64 MiB while the tensor lives.
    ywb::configureTorchThreads(0);
    const size_t before = mallinfo2().hblkhd;
    at::Tensor big = at::empty({16 << 20}, at::kFloat);  // 64 MiB
    big.fill_(1.0f);
    const size_t during = mallinfo2().hblkhd;
    QVERIFY2(during < before + (64u << 20),
             qPrintable(QString("mmapped bytes %1 -> %2").arg(before).arg(during)));
    QCOMPARE(big.sum().item<double>(), double(16 << 20));
  }

  void gradClipMatchesLibTorch() {
    // Reference: LibTorch's own clip_grad_norm_ on a copy of the same gradients; and by hand: gradients
    // all 3.0 over 3*8*9 + 8 + 8 + 4*8 + 4 = 268 elements have norm 3*sqrt(268) = 49.11, clipped to 10.
    torch::manual_seed(5);
    for (const double scale : {0.01, 1.0, 100.0}) {  // below, near and above the max norm of 10
      auto a = tinyNet(), b = tinyNet();
      const auto pa = a->parameters(), pb = b->parameters();
      for (size_t i = 0; i < pa.size(); ++i) {
        const at::Tensor g = at::randn_like(pa[i]) * scale;
        pa[i].mutable_grad() = g.clone();
        pb[i].mutable_grad() = g.clone();
      }
      const double ref = torch::nn::utils::clip_grad_norm_(pa, 10.0);
      const at::Tensor mine = ywb::clipGradNorm(pb, 10.0);
      QVERIFY(std::abs(mine.item<double>() - ref) <= 1e-5 * ref);
      for (size_t i = 0; i < pa.size(); ++i) QVERIFY(at::allclose(pa[i].grad(), pb[i].grad(), 1e-6, 1e-9));
    }
    auto n = tinyNet();
    for (auto& p : n->parameters()) p.mutable_grad() = at::full_like(p, 3.0);
    const double total = ywb::clipGradNorm(n->parameters(), 10.0).item<double>();
    QVERIFY(std::abs(total - 3.0 * std::sqrt(268.0)) < 1e-4);
    double after = 0;
    for (auto& p : n->parameters()) after += p.grad().pow(2).sum().item<double>();
    QVERIFY(std::abs(std::sqrt(after) - 10.0) < 1e-4);
  }

  void autoBatchFitsTheMemoryLine() {
    const int64_t GiB = 1LL << 30;
    {
      // 80 GiB GPU, 2 GiB fixed + 0.5 GiB per image: 60% of 80 = 48 GiB -> (48 - 2) / 0.5 = 92 images.
      FakeGpu gpu(80 * GiB, 2 * GiB, GiB / 2, 0);
      const ywb::AutoBatchResult r = ywb::chooseBatch(gpu);
      QCOMPARE(r.batch, 92);
      QVERIFY(!r.fallback);
      QCOMPARE(gpu.trials, (std::vector<int>{1, 2, 4, 8, 16}));
      QVERIFY(std::abs(r.slope - double(GiB / 2)) < 1.0 && std::abs(r.intercept - double(2 * GiB)) < 64.0);
      // With CUDA graphs the step's memory counts twice: (0.30 * 80 - 2) / 0.5 = 44 images, whose doubled
      // prediction 2 * (2 + 22) = 48 GiB is the 60% target.
      FakeGpu graphed(80 * GiB, 2 * GiB, GiB / 2, 0);
      QCOMPARE(ywb::chooseBatch(graphed, ywb::autoBatchFraction(true)).batch, 44);
      QCOMPARE(ywb::autoBatchFraction(false), ywb::kAutoBatchFraction);
      // batch=0.70, 2 GiB + 100 MiB fixed: 70% of 80 = 56 GiB -> (56 - 2.0977) / 0.5 = 107.8 -> 107 images;
      // with graphs (0.35 x 80 - 2.0977) / 0.5 = 51.8 -> 51 (sizes clear of whole numbers, so no rounding
      // of the fraction can move them).
      const int64_t base = 2 * GiB + 100 * (1LL << 20);
      FakeGpu seventy(80 * GiB, base, GiB / 2, 0), seventy_graphed(80 * GiB, base, GiB / 2, 0);
      const ywb::AutoBatchResult r70 = ywb::chooseBatch(seventy, ywb::autoBatchFraction(false, 0.70));
      QCOMPARE(r70.batch, 107);
      QVERIFY2(QString::fromStdString(r70.note).contains("batch=107 for 70% of 80.00 GiB"), r70.note.c_str());
      QCOMPARE(ywb::chooseBatch(seventy_graphed, ywb::autoBatchFraction(true, 0.70)).batch, 51);
    }
    {
      // Runs out of memory at 8: the search stops there and never answers 8 or more, even though the
      // line (2 GiB + 4 GiB/image, 24 GiB GPU: (14.4 - 2) / 4 = 3.1) would allow 3 -> 3.
      FakeGpu gpu(24 * GiB, 2 * GiB, 4 * GiB, 8);
      const ywb::AutoBatchResult r = ywb::chooseBatch(gpu);
      QCOMPARE(gpu.trials, (std::vector<int>{1, 2, 4, 8}));
      QCOMPARE(r.failed_at, 8);
      QCOMPARE(r.batch, 3);
    }
    {
      // The line says 92 but batch 16 failed: the largest size that ran (8) is taken.
      FakeGpu gpu(80 * GiB, 2 * GiB, GiB / 2, 16);
      QCOMPARE(ywb::chooseBatch(gpu).batch, 8);
    }
    {
      // Only batch 1 fits: 1. Nothing fits: the default 16 with a note (the run then fails honestly).
      FakeGpu one(80 * GiB, 2 * GiB, GiB, 2);
      QCOMPARE(ywb::chooseBatch(one).batch, 1);
      FakeGpu none(80 * GiB, 2 * GiB, GiB, 1);
      const ywb::AutoBatchResult r = ywb::chooseBatch(none);
      QVERIFY(r.fallback);
      QCOMPARE(r.batch, 16);
    }
    {
      // Memory that does not grow (a probe that cannot see the process): fall back, do not divide by 0.
      FakeGpu flat(80 * GiB, 2 * GiB, 0, 0);
      QVERIFY(ywb::chooseBatch(flat).fallback);
    }
  }

  void autoBatchTrialsRunTheWholeYolo26Step() {
    // chooseBatch over the real probe (StepProbe on AutoBatchStep) of a yolo26n on this CPU; only the GPU's
    // memory readings are faked (NVML cannot run here): 2 GiB + 0.5 GiB per image of 80 GiB, so 92 images
    // as in autoBatchFitsTheMemoryLine. Each reading comes right after a trial, so it also sees that trial's
    // gradients. The one-to-one branches (one2one_*) work on detached features, so they get gradients only
    // from the one-to-one part of the end-to-end loss: its class term (BCE over every anchor) reaches every
    // one2one_cv3 parameter, its box terms one2one_cv2 only at the levels where a box was assigned (one
    // anchor per box: not every level in every step). The backbone and the one-to-many branches get theirs
    // from the one-to-many part. A trial that ran the one-to-many maps alone would leave every one2one_* at
    // zero.
    const int64_t GiB = 1LL << 30;
    torch::manual_seed(0);
    ywb::AutoBatchStep step(ywb::model::buildModel("yolo26n.yaml", 3), 64, /*amp=*/false);
    QVERIFY(step.loss().endToEnd());
    int trials = 0, whole_steps = 0;
    ywb::StepProbe::Memory memory;
    memory.total = [&] { return 80 * GiB; };
    memory.before_trial = [&] { ++trials; };
    memory.used = [&]() -> int64_t {
      int64_t o2o_cls = 0, o2o_box = 0, zero = 0;
      for (const auto& p : step.model()->named_parameters()) {
        const bool has = p.value().grad().defined() && p.value().grad().abs().max().item<double>() > 0;
        if (p.key().find(".one2one_cv2.") != std::string::npos) {
          o2o_box += has;
          continue;
        }
        o2o_cls += p.key().find(".one2one_cv3.") != std::string::npos;
        zero += !has;
      }
      if (o2o_cls > 0 && o2o_box > 0 && zero == 0) ++whole_steps;
      const int64_t batch = int64_t(1) << (trials - 1);  // chooseBatch tries 1, 2, 4, 8, 16
      return 2 * GiB + GiB / 2 * batch;
    };
    ywb::StepProbe probe(step, memory);
    const ywb::AutoBatchResult r = ywb::chooseBatch(probe);
    QCOMPARE(trials, 5);
    QCOMPARE(whole_steps, 5);  // every trial reached both branches
    QCOMPARE(r.batch, 92);
    // The trial's loss is the trainer's: ModelLoss of both branches at the first epoch's o2m weight (0.8).
    const ywb::AutoBatchStep::Inputs in = step.inputs(2);
    const double trial_loss = step.run(in).item<double>();
    torch::NoGradGuard no_grad;
    const double trainer_loss =
        step.loss()(step.model()->forwardHeads(in.images), in.targets, ywb::loss::O2mSchedule::kStart)
            .total.item<double>();
    QCOMPARE(trial_loss, trainer_loss);
    QVERIFY(trial_loss > 0);
  }

  void lrFactorLinearAndCosine() {
    // Linear: (1 - e/E)(1 - lrf) + lrf with E=100, lrf=0.01: e=0 -> 1, e=50 -> 0.5*0.99+0.01 = 0.505, e=100
    // -> 0.01.
    QCOMPARE(ywb::lrFactor(0, 100, 0.01, false), 1.0);
    QVERIFY(std::abs(ywb::lrFactor(50, 100, 0.01, false) - 0.505) < 1e-12);
    QVERIFY(std::abs(ywb::lrFactor(100, 100, 0.01, false) - 0.01) < 1e-12);
    // Cosine: ((1 - cos(pi e/E))/2)(lrf - 1) + 1: e=25 -> (1 - 0.70710678)/2 * -0.99 + 1 = 0.85501786.
    QVERIFY(std::abs(ywb::lrFactor(25, 100, 0.01, true) - 0.85501786) < 1e-8);
    QVERIFY(std::abs(ywb::lrFactor(100, 100, 0.01, true) - 0.01) < 1e-12);
  }

  void warmupAndAccumulation() {
    QCOMPARE(ywb::warmupIterations(3, 8), int64_t(100));  // 24 < the 100-iteration floor
    QCOMPARE(ywb::warmupIterations(3, 1000), int64_t(3000));
    QCOMPARE(ywb::warmupIterations(0, 1000), int64_t(-1));
    // Python's round() is half to even: 2.5 x 41 = 102.5 -> 102 (half away from zero would give 103), and
    // 2.5 x 43 = 107.5 -> 108.
    QCOMPARE(ywb::warmupIterations(2.5, 41), int64_t(102));
    QCOMPARE(ywb::warmupIterations(2.5, 43), int64_t(108));
    // nbs 64, batch 16: accumulate ramps 1 -> 4 over warmup; interp(50; 0..100; 1..4) = 2.5 ->
    // round-half-even 2.
    QCOMPARE(ywb::accumulateSteps(64, 16, 0, 100), 1);
    QCOMPARE(ywb::accumulateSteps(64, 16, 50, 100), 2);
    QCOMPARE(ywb::accumulateSteps(64, 16, 100, 100), 4);
    QCOMPARE(ywb::accumulateSteps(64, 16, 5000, 100), 4);
    QCOMPARE(ywb::accumulateSteps(64, 24, 5000, 100), 3);   // round(2.667)
    QCOMPARE(ywb::accumulateSteps(64, 128, 5000, 100), 1);  // never below 1
    // Bias lr falls from warmup_bias_lr 0.1 to the target 0.01: halfway 0.055; weights rise 0 -> 0.01: 0.005.
    QVERIFY(std::abs(ywb::warmupLr(0, 50, 100, 0.1, 0.01) - 0.055) < 1e-12);
    QVERIFY(std::abs(ywb::warmupLr(1, 50, 100, 0.1, 0.01) - 0.005) < 1e-12);
    QVERIFY(std::abs(ywb::warmupLr(2, 100, 100, 0.1, 0.01) - 0.01) < 1e-12);
  }

  void parameterGroupsAndOptimizer() {
    auto net = tinyNet();
    const ywb::ParamGroups g = ywb::splitParamGroups(*net);
    // weights: conv0.weight, conv2.weight; BN weights: bn.weight; biases: bn.bias, conv2.bias (Ultralytics
    // puts every parameter named "bias" in the no-decay bias group, BN biases included).
    QCOMPARE(g.weight_names, (std::vector<std::string>{"0.weight", "2.weight"}));
    QCOMPARE(g.bn_names, (std::vector<std::string>{"1.weight"}));
    QCOMPARE(g.bias_names, (std::vector<std::string>{"1.bias", "2.bias"}));
    auto opt = ywb::makeOptimizer(g, ywb::chooseOptimizer("SGD", 0.01, 0.937, 80, 100), 0.0005);
    QCOMPARE(opt->param_groups().size(), size_t(3));
    auto& o1 = static_cast<torch::optim::SGDOptions&>(opt->param_groups()[1].options());
    auto& o0 = static_cast<torch::optim::SGDOptions&>(opt->param_groups()[0].options());
    QCOMPARE(o1.weight_decay(), 0.0005);
    QCOMPARE(o0.weight_decay(), 0.0);
    QVERIFY(o1.nesterov());
    ywb::setGroupLr(*opt, 2, 0.123);
    QCOMPARE(ywb::groupLr(*opt, 2), 0.123);
  }

  void autoOptimizerRule() {
    // <= 10,000 iterations: AdamW with lr = round(0.002 * 5 / (4 + nc), 6); nc 80 -> 0.01/84 = 0.000119.
    auto c = ywb::chooseOptimizer("auto", 0.01, 0.937, 80, 5000);
    QCOMPARE(c.name, std::string("AdamW"));
    QCOMPARE(c.lr, 0.000119);
    QCOMPARE(c.momentum, 0.9);
    QVERIFY(c.auto_chosen);
    // > 10,000 iterations: Ultralytics 8.4 picks MuSGD (8.3 picked SGD) with lr 0.01, momentum 0.9.
    c = ywb::chooseOptimizer("auto", 0.01, 0.937, 80, 20000);
    QCOMPARE(c.name, std::string("MuSGD"));
    QCOMPARE(c.lr, 0.01);
    QCOMPARE(c.momentum, 0.9);
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::chooseOptimizer("Lion", 0.01, 0.9, 80, 1));
  }

  void emaArithmetic() {
    // Parameters and BatchNorm's float statistics (running_mean, running_var) are all set to 1, then 2, then
    // 3 in the model; the EMA copy must hold the same EMA of them after each update.
    auto model = tinyNet();
    auto ema_model = tinyNet();
    torch::NoGradGuard ng;
    auto fillModel = [&](float v) {
      for (auto& p : model->parameters()) p.fill_(v);
      for (auto& b : model->buffers())
        if (b.is_floating_point()) b.fill_(v);
    };
    auto bnStats = [&] {
      auto buffers = ema_model->named_buffers();
      return std::vector<at::Tensor>{buffers["1.running_mean"], buffers["1.running_var"]};
    };
    QCOMPARE(bnStats().size(), size_t(2));
    QVERIFY(bnStats()[0].defined() && bnStats()[1].defined());
    fillModel(1.0f);
    ywb::ModelEma ema(ema_model, *model);
    for (auto& p : ema_model->parameters()) QCOMPARE(p.min().item<float>(), 1.0f);  // starts as a copy
    for (auto& b : bnStats()) QCOMPARE(b.min().item<float>(), 1.0f);
    fillModel(2.0f);
    // d1 = 0.9999 (1 - exp(-1/2000)); ema = d1 * 1 + (1 - d1) * 2 = 2 - d1.
    const double d1 = 0.9999 * (1 - std::exp(-1.0 / 2000));
    QVERIFY(std::abs(ema.nextDecay() - d1) < 1e-15);
    ema.update(*model);
    const double e1 = 2 - d1;
    for (auto& p : ema_model->parameters()) QVERIFY(std::abs(p.max().item<float>() - e1) < 1e-6);
    for (auto& b : bnStats()) {
      QVERIFY(std::abs(b.min().item<float>() - e1) < 1e-6);
      QVERIFY(std::abs(b.max().item<float>() - e1) < 1e-6);
    }
    fillModel(3.0f);
    const double d2 = 0.9999 * (1 - std::exp(-2.0 / 2000));
    ema.update(*model);
    const double e2 = d2 * e1 + (1 - d2) * 3;
    for (auto& p : ema_model->parameters()) QVERIFY(std::abs(p.min().item<float>() - e2) < 1e-6);
    for (auto& b : bnStats()) {
      QVERIFY(std::abs(b.min().item<float>() - e2) < 1e-6);
      QVERIFY(std::abs(b.max().item<float>() - e2) < 1e-6);
    }
    QCOMPARE(ema.updates(), int64_t(2));
  }

  void scalerSkipsNonFiniteStepsAndAdapts() {
    auto w = torch::ones({2}, torch::requires_grad());
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(1.0));
    ywb::GradScaler scaler(true, 65536.0, 2.0, 0.5, /*growth_interval=*/2);
    // Injected inf gradient: the step is skipped, weights untouched, the scale halves.
    w.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::Overflow);
    scaler.update();
    QCOMPARE(w[0].item<float>(), 1.0f);
    QCOMPARE(scaler.currentScale(), 32768.0);
    QCOMPARE(scaler.skippedSteps(), int64_t(1));
    // Clean gradient of 0.5 * scale: unscaled to 0.5, SGD lr 1 moves w from 1 to 0.5.
    w.mutable_grad() = torch::full({2}, 0.5f * 32768.0f);
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::Stepped);
    scaler.update();
    QCOMPARE(w[1].item<float>(), 0.5f);
    QCOMPARE(scaler.currentScale(), 32768.0);  // one clean step of the two needed to grow
    w.mutable_grad() = torch::zeros({2});
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::Stepped);
    scaler.update();
    QCOMPARE(scaler.currentScale(), 65536.0);  // two clean steps: doubled
    // NaN is caught like inf.
    w.mutable_grad() = torch::tensor({std::nanf(""), 0.0f});
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::Overflow);
    scaler.update();
    QCOMPARE(scaler.currentScale(), 32768.0);
    QCOMPARE(scaler.nonFiniteSteps(), int64_t(0));  // overflows are the scale's business, not bad steps
    // A NaN loss is a bad step even when the gradients are finite, and it is not the scale's fault: the
    // scale grows on as after a clean step (tracker was reset by the NaN overflow above: 0 -> 1).
    (void)scaler.scale(torch::tensor(std::nanf("")));
    w.mutable_grad() = torch::ones({2});
    const float w1 = w[1].item<float>();
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::NonFinite);
    scaler.update();
    QCOMPARE(w[1].item<float>(), w1);
    QCOMPARE(scaler.nonFiniteSteps(), int64_t(1));
    // update() forgot the NaN loss: the next clean step steps.
    w.mutable_grad() = torch::zeros({2});
    QVERIFY(scaler.step(opt) == ywb::StepOutcome::Stepped);
    scaler.update();
    // Disabled scaler: identity scale; it steps unless a loss or the gradients are NaN/Inf, and its scale
    // never changes.
    ywb::GradScaler off(false);
    QCOMPARE(off.scale(torch::tensor(3.0f)).item<float>(), 3.0f);
    w.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 0.0f});
    const float w0 = w[0].item<float>();
    QVERIFY(off.step(opt) == ywb::StepOutcome::NonFinite);
    off.update();
    QCOMPARE(w[0].item<float>(), w0);
    QCOMPARE(off.currentScale(), 65536.0);
    QCOMPARE(off.skippedSteps(), int64_t(0));
    QCOMPARE(off.nonFiniteSteps(), int64_t(1));
    w.mutable_grad() = torch::full({2}, 0.25f);  // SGD lr 1: w[0] - 0.25
    QVERIFY(off.step(opt) == ywb::StepOutcome::Stepped);
    QCOMPARE(w[0].item<float>(), w0 - 0.25f);
  }
  void epochDecisionRule() {
    using D = ywb::EpochDecision;
    // patience 3, best at epoch 2 (0-based): epochs 3 and 4 continue, epoch 5 is the third without a better
    // one.
    QVERIFY(ywb::decideAfterEpoch(false, 4, 2, 3, 10, 0) == D::Continue);
    QVERIFY(ywb::decideAfterEpoch(false, 5, 2, 3, 10, 0) == D::Patience);
    QVERIFY(ywb::decideAfterEpoch(false, 50, -1, 3, 10, 0) == D::Continue);  // no validated epoch yet
    QVERIFY(ywb::decideAfterEpoch(false, 50, 0, 0, 10, 0) == D::Continue);   // patience 0 = off
    // time budget 3600 s: reached at 3600 s, not before; off at 0
    QVERIFY(ywb::decideAfterEpoch(false, 1, 1, 3, 3599.9, 3600) == D::Continue);
    QVERIFY(ywb::decideAfterEpoch(false, 1, 1, 3, 3600, 3600) == D::TimeBudget);
    QVERIFY(ywb::decideAfterEpoch(false, 1, 1, 3, 1e9, 0) == D::Continue);
    // a stop request wins over both; patience over time
    QVERIFY(ywb::decideAfterEpoch(true, 5, 2, 3, 1e9, 1) == D::StopRequested);
    QVERIFY(ywb::decideAfterEpoch(false, 5, 2, 3, 1e9, 1) == D::Patience);
  }
};

QTEST_GUILESS_MAIN(TestTrainParts)
#include "test_train_parts.moc"
