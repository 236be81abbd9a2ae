// Adamax, NAdam and RAdam (AdamVariant; LibTorch's C++ API has none) against two references:
// - a float64 transcription, element by element, of the algorithms in PyTorch's documentation (torch.optim.
//   Adamax / NAdam / RAdam), which is what Ultralytics runs on PyTorch 2.x;
// - PyTorch's own numbers: Debian's PyTorch 1.13 stepping one 4-element parameter 12 times
//   (/usr/bin/python3 with python3-torch; lr 0.01, betas (0.937, 0.999), weight_decay 0.01, the gradients
//   below), printed with %.9g. PyTorch 1.13's NAdam multiplies one extra mu into the next step's product
//   (fixed in 2.0); the transcription reproduces 1.13's number with that product, and ours follows 2.x.
// Then every optimizer Ultralytics offers, built as the trainer builds it, through a real checkpoint file: a
// run saved after 3 steps and restored goes on bit for bit as the uninterrupted one.
#include <torch/torch.h>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "core/torch_compat.h"
#include "train/adam_variants.h"
#include "train/checkpoint.h"
#include "train/optimizer_factory.h"
#include "train/optimizer_names.h"

namespace {

using ywb::AdamVariantKind;

struct Ref {  // one element's state in float64
  double m = 0, v = 0;
};

// One step of the documented algorithm for one element; t counts from 1. `extra_mu` applies PyTorch 1.13's
// NAdam product (mu_1..mu_t x mu_t x mu_(t+1) for the momentum's share).
double refStep(AdamVariantKind kind, Ref& s, double p, double g, int t, double lr, double b1, double b2,
               double eps, double wd, bool extra_mu = false) {
  g += wd * p;
  s.m = b1 * s.m + (1 - b1) * g;
  if (kind == AdamVariantKind::Adamax) {
    s.v = std::max(b2 * s.v, std::abs(g) + eps);
    return p - lr / (1 - std::pow(b1, t)) * s.m / s.v;
  }
  s.v = b2 * s.v + (1 - b2) * g * g;
  const double bc2 = 1 - std::pow(b2, t);
  if (kind == AdamVariantKind::NAdam) {
    auto mu = [&](int i) { return b1 * (1 - 0.5 * std::pow(0.96, i * 0.004)); };
    double prod = 1;
    for (int i = 1; i <= t; ++i) prod *= mu(i);
    const double prod_next = prod * mu(t + 1) * (extra_mu ? mu(t) : 1.0);
    const double denom = std::sqrt(s.v / bc2) + eps;
    return p - lr * (1 - mu(t)) / (1 - prod) * g / denom - lr * mu(t + 1) / (1 - prod_next) * s.m / denom;
  }
  const double m_hat = s.m / (1 - std::pow(b1, t));
  const double rho_inf = 2 / (1 - b2) - 1, rho_t = rho_inf - 2 * t * std::pow(b2, t) / bc2;
  if (rho_t <= 5) return p - lr * m_hat;
  const double rect =
      std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
  return p - lr * m_hat * rect * std::sqrt(bc2) / (std::sqrt(s.v) + eps);
}

// The gradient of element j at step t of the PyTorch comparison.
float pytorchCaseGrad(int t, int j) {
  return float(std::sin(0.7 * t + j) * 0.1 + 0.02 * j);
}

std::shared_ptr<torch::nn::SequentialImpl> tinyNet() {
  return std::make_shared<torch::nn::SequentialImpl>(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), torch::nn::BatchNorm2d(8),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 1).bias(true)));
}

void setGrads(torch::nn::Module& net, int step) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1000 + step);
  for (auto& p : net.parameters()) p.mutable_grad() = at::randn(p.sizes(), gen);
}

}  // namespace

class TestAdamVariants : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void matchPyTorchsOwnNumbers_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("torch113_product");
    QTest::addColumn<QVector<double>>("pytorch");
    QTest::newRow("Adamax") << int(AdamVariantKind::Adamax) << false
                            << QVector<double>{0.454024285, 0.207881466, -0.032715939, -0.269488037};
    QTest::newRow("RAdam") << int(AdamVariantKind::RAdam) << false
                           << QVector<double>{0.495853782, 0.245374113, -0.00272450992, -0.251378924};
    QTest::newRow("NAdam (1.13's product)")
        << int(AdamVariantKind::NAdam) << true
        << QVector<double>{0.466863453, 0.212068528, -0.0390504338, -0.290845543};
  }

  void matchPyTorchsOwnNumbers() {
    QFETCH(int, kind);
    QFETCH(bool, torch113_product);
    QFETCH(QVector<double>, pytorch);
    const auto k = AdamVariantKind(kind);
    at::Tensor p = at::tensor({0.5f, 0.25f, 0.0f, -0.25f}).set_requires_grad(true);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<at::Tensor>{p},
                        std::make_unique<ywb::AdamVariantOptions>(
                            ywb::AdamVariantOptions(k, 0.01).betas({0.937, 0.999}).weight_decay(0.01)));
    ywb::AdamVariant opt(std::move(groups), ywb::AdamVariantOptions(k, 0.01));
    std::vector<Ref> ref(4);
    std::vector<double> rp{0.5, 0.25, 0.0, -0.25};
    for (int t = 1; t <= 12; ++t) {
      std::vector<float> g(4);
      for (int j = 0; j < 4; ++j) g[j] = pytorchCaseGrad(t, j);
      p.mutable_grad() = at::tensor(g);
      opt.step();
      for (int j = 0; j < 4; ++j)
        rp[j] = refStep(k, ref[j], rp[j], g[j], t, 0.01, 0.937, 0.999, 1e-8, 0.01, torch113_product);
    }
    const auto ours = p.detach().contiguous();
    for (int j = 0; j < 4; ++j) {
      // The transcription equals PyTorch's numbers (float32 there: a few ulps of drift over 12 steps).
      QVERIFY2(std::abs(rp[j] - pytorch[j]) < 2e-6,
               qPrintable(QString("element %1: transcription %2, PyTorch %3")
                              .arg(j)
                              .arg(rp[j], 0, 'g', 9)
                              .arg(pytorch[j], 0, 'g', 9)));
      if (!torch113_product) {
        const double v = ours[j].item<float>();
        QVERIFY2(std::abs(v - pytorch[j]) < 2e-6, qPrintable(QString("element %1: ours %2, PyTorch %3")
                                                                 .arg(j)
                                                                 .arg(v, 0, 'g', 9)
                                                                 .arg(pytorch[j], 0, 'g', 9)));
      }
    }
    if (torch113_product) {  // ours follows 2.x: the momentum's share is larger, so the steps are not 1.13's
      const double v = ours[0].item<float>();
      QVERIFY2(std::abs(v - pytorch[0]) > 1e-4, qPrintable(QString("ours %1 equals 1.13's").arg(v)));
    }
  }

  void matchTheDocumentedAlgorithms_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("Adamax") << int(AdamVariantKind::Adamax);
    QTest::newRow("NAdam") << int(AdamVariantKind::NAdam);
    QTest::newRow("RAdam") << int(AdamVariantKind::RAdam);  // steps 1-5 unrectified, 6-12 rectified
  }

  void matchTheDocumentedAlgorithms() {
    // Two parameters in two groups (one decayed), the second missing step 4's gradient (its own step count
    // then lags, as a frozen or unused parameter's does), a learning-rate change at step 7 (the schedule),
    // 12 steps of random gradients; every element against the float64 transcription.
    QFETCH(int, kind);
    const auto k = AdamVariantKind(kind);
    torch::manual_seed(11);
    at::Tensor a = at::randn({3, 5}).set_requires_grad(true), b = at::randn({7}).set_requires_grad(true);
    auto options = [&](double wd) {
      return std::make_unique<ywb::AdamVariantOptions>(
          ywb::AdamVariantOptions(k, 0.003).betas({0.9, 0.999}).weight_decay(wd));
    };
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<at::Tensor>{a}, options(5e-4));
    groups.emplace_back(std::vector<at::Tensor>{b}, options(0.0));
    ywb::AdamVariant opt(std::move(groups), ywb::AdamVariantOptions(k, 0.003));
    struct Tracked {
      at::Tensor param;
      double wd;
      std::vector<double> value;
      std::vector<Ref> state;
      int t = 0;
    };
    std::vector<Tracked> tracked;
    for (auto [t, wd] : {std::pair{a, 5e-4}, std::pair{b, 0.0}}) {
      const auto flat = t.detach().reshape({-1});
      Tracked tr{t, wd, {}, std::vector<Ref>(size_t(flat.numel()))};
      for (int64_t i = 0; i < flat.numel(); ++i) tr.value.push_back(flat[i].item<float>());
      tracked.push_back(tr);
    }
    double lr = 0.003;
    for (int step = 1; step <= 12; ++step) {
      if (step == 7) {
        lr = 0.0011;
        for (auto& g : opt.param_groups()) g.options().set_lr(lr);
      }
      for (size_t n = 0; n < tracked.size(); ++n) {
        auto& tr = tracked[n];
        if (n == 1 && step == 4) {
          tr.param.mutable_grad() = at::Tensor();
          continue;
        }
        const at::Tensor g = at::randn(tr.param.sizes());
        tr.param.mutable_grad() = g;
        const auto gf = g.reshape({-1});
        ++tr.t;
        for (size_t i = 0; i < tr.value.size(); ++i)
          tr.value[i] = refStep(k, tr.state[i], tr.value[i], gf[int64_t(i)].item<float>(), tr.t, lr, 0.9,
                                0.999, 1e-8, tr.wd);
      }
      opt.step();
      for (const auto& tr : tracked) {
        const auto ours = tr.param.detach().reshape({-1});
        for (size_t i = 0; i < tr.value.size(); ++i) {
          const double v = ours[int64_t(i)].item<float>();
          QVERIFY2(std::abs(v - tr.value[i]) <= 1e-6 * std::max(1.0, std::abs(tr.value[i])),
                   qPrintable(QString("step %1 element %2: ours %3, reference %4")
                                  .arg(step)
                                  .arg(i)
                                  .arg(v, 0, 'g', 9)
                                  .arg(tr.value[i], 0, 'g', 9)));
        }
      }
    }
    const auto& lagging = static_cast<const ywb::AdamVariantParamState&>(
        *opt.state().at(ywb::compat::optimizerStateKey(opt.state(), b)));
    QCOMPARE(lagging.step(), int64_t(11));
  }

  void everyOptimizerResumesBitExactlyFromACheckpointFile_data() {
    QTest::addColumn<QString>("name");
    for (const auto& n : ywb::optimizerNames())
      if (n != "auto") QTest::newRow(n.c_str()) << QString::fromStdString(n);
  }

  void everyOptimizerResumesBitExactlyFromACheckpointFile() {
    // The trainer's own construction (splitParamGroups, chooseOptimizer, makeOptimizer) on a tiny net:
    // 6 steps straight against 3 steps, a checkpoint file, a fresh net and optimizer restored from it, and 3
    // more steps with the same gradients. The weights after must be identical.
    QFETCH(QString, name);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("last.safetensors").toStdString();
    torch::manual_seed(21);
    auto straight = tinyNet(), resumed = tinyNet();
    {
      torch::NoGradGuard ng;
      for (size_t i = 0; i < straight->parameters().size(); ++i)
        resumed->parameters()[i].copy_(straight->parameters()[i]);
    }
    const auto choice = ywb::chooseOptimizer(name.toStdString(), 0.01, 0.9, 4, 100);
    QCOMPARE(QString::fromStdString(choice.name), name);
    auto opt_a = ywb::makeOptimizer(ywb::splitParamGroups(*straight), choice, 5e-4);
    auto opt_b = ywb::makeOptimizer(ywb::splitParamGroups(*resumed), choice, 5e-4);
    for (int step = 0; step < 3; ++step) {
      setGrads(*straight, step);
      setGrads(*resumed, step);
      opt_a->step();
      opt_b->step();
    }
    ywb::saveCheckpoint(path, {resumed.get(), nullptr, opt_b.get(), false, {}});
    auto fresh = tinyNet();
    auto opt_c = ywb::makeOptimizer(ywb::splitParamGroups(*fresh), choice, 5e-4);
    ywb::restoreCheckpoint(ywb::readCheckpoint(path), {fresh.get(), nullptr, opt_c.get(), false, {}});
    QCOMPARE(opt_c->state().size(), opt_b->state().size());
    for (int step = 3; step < 6; ++step) {
      setGrads(*straight, step);
      setGrads(*fresh, step);
      opt_a->step();
      opt_c->step();
    }
    const auto pa = straight->parameters(), pc = fresh->parameters();
    for (size_t i = 0; i < pa.size(); ++i)
      QVERIFY2(at::equal(pa[i], pc[i]), qPrintable(QString("param %1").arg(i)));
  }

  void namesAreMatchedWithoutCase() {
    // Ultralytics compares optimizer names without case (optimizer=adamw trains AdamW).
    QCOMPARE(QString::fromStdString(ywb::canonicalOptimizerName("adamw")), QString("AdamW"));
    QCOMPARE(QString::fromStdString(ywb::canonicalOptimizerName("RMSPROP")), QString("RMSProp"));
    QCOMPARE(QString::fromStdString(ywb::canonicalOptimizerName("Auto")), QString("auto"));
    QCOMPARE(QString::fromStdString(ywb::chooseOptimizer("nadam", 0.01, 0.9, 4, 100).name), QString("NAdam"));
    QVERIFY(ywb::chooseOptimizer("AUTO", 0.01, 0.9, 4, 100).auto_chosen);
    try {
      ywb::chooseOptimizer("Adagrad", 0.01, 0.9, 4, 100);
      QFAIL("Adagrad is not an Ultralytics optimizer and must be refused");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("RMSProp"), e.what());  // the message lists the choices
    }
  }
};

QTEST_GUILESS_MAIN(TestAdamVariants)
#include "test_adam_variants.moc"
