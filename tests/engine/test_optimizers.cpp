// The trainer's optimizers against LibTorch's own: ForeachSGD, ForeachAdamW, ForeachAdam and ForeachRMSprop
// run the same arithmetic as torch::optim::SGD / AdamW / Adam / RMSprop as a few multi-tensor kernels per
// group; the reference is LibTorch's optimizer stepping an identical copy of the model with the same
// gradients, compared bit for bit.
#include <torch/torch.h>
#include <QtTest>
#include <algorithm>
#include <functional>
#include <utility>

#include "core/torch_compat.h"
#include "train/foreach_adam.h"
#include "train/foreach_adamw.h"
#include "train/foreach_sgd.h"

namespace {

// conv(no bias) -> BN -> conv(bias): the three Ultralytics parameter groups in miniature.
std::shared_ptr<torch::nn::SequentialImpl> tinyNet() {
  return std::make_shared<torch::nn::SequentialImpl>(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), torch::nn::BatchNorm2d(8),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 1).bias(true)));
}

using Net = std::shared_ptr<torch::nn::SequentialImpl>;

// Two tiny nets with the same weights: one for LibTorch's optimizer, one for ours.
std::pair<Net, Net> twinNets() {
  Net a = tinyNet(), b = tinyNet();
  torch::NoGradGuard ng;
  for (size_t i = 0; i < a->parameters().size(); ++i) b->parameters()[i].copy_(a->parameters()[i]);
  return {a, b};
}

// The trainer's three groups (biases, decayed weights, BN weights) of `n`, each with `base` options and its
// own weight decay.
template <typename Options>
std::vector<torch::optim::OptimizerParamGroup> threeGroups(torch::nn::SequentialImpl& n,
                                                           const Options& base) {
  auto p = n.parameters();  // conv0.w, bn.w, bn.b, conv2.w, conv2.b
  auto with = [&](double wd) {
    auto o = std::make_unique<Options>(base);
    o->weight_decay(wd);
    return o;
  };
  std::vector<torch::optim::OptimizerParamGroup> g;
  g.emplace_back(std::vector<at::Tensor>{p[2], p[4]}, with(0.0));
  g.emplace_back(std::vector<at::Tensor>{p[0], p[3]}, with(5e-4));
  g.emplace_back(std::vector<at::Tensor>{p[1]}, with(0.0));
  return g;
}

// Six steps of both optimizers with the same random gradients: the parameters `skip_at_2` get none at step
// 2 (both must skip them), `change_at_3` edits every group's options before step 3 (warmup does that), and
// after every step each parameter must be bit-identical. Records a failure (QVERIFY) and returns on the
// first difference.
template <typename Options>
void stepSideBySide(torch::optim::Optimizer& ref, torch::optim::Optimizer& fe,
                    const std::pair<Net, Net>& nets, const std::vector<size_t>& skip_at_2,
                    const std::function<void(Options&)>& change_at_3) {
  for (int step = 0; step < 6; ++step) {
    const auto pa = nets.first->parameters(), pb = nets.second->parameters();
    for (size_t i = 0; i < pa.size(); ++i) {
      if (step == 2 && std::find(skip_at_2.begin(), skip_at_2.end(), i) != skip_at_2.end()) {
        pa[i].mutable_grad() = at::Tensor();
        pb[i].mutable_grad() = at::Tensor();
        continue;
      }
      const at::Tensor g = at::randn_like(pa[i]);
      pa[i].mutable_grad() = g.clone();
      pb[i].mutable_grad() = g.clone();
    }
    if (step == 3) {
      for (auto* o : {&ref, &fe})
        for (auto& grp : o->param_groups()) change_at_3(static_cast<Options&>(grp.options()));
    }
    ref.step();
    fe.step();
    for (size_t i = 0; i < pa.size(); ++i)
      QVERIFY2(at::equal(pa[i], pb[i]), qPrintable(QString("step %1 param %2").arg(step).arg(i)));
  }
}

}  // namespace

class TestOptimizers : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void foreachSgdMatchesTorchSgdBitExactly() {
    // ForeachSGD must do exactly torch::optim::SGD's arithmetic (the reference is LibTorch's own
    // optimizer): three groups with different weight decay, Nesterov momentum, a changed lr and momentum
    // (warmup does that), a parameter without a gradient, and 6 steps of random gradients.
    torch::manual_seed(3);
    const auto nets = twinNets();
    const auto base = torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true);
    torch::optim::SGD ref(threeGroups(*nets.first, base), torch::optim::SGDOptions(0.01));
    ywb::ForeachSGD fe(threeGroups(*nets.second, base), torch::optim::SGDOptions(0.01));
    stepSideBySide<torch::optim::SGDOptions>(ref, fe, nets, {1},
                                             [](torch::optim::SGDOptions& o) { o.lr(0.037).momentum(0.8); });
    if (QTest::currentTestFailed()) return;
    QCOMPARE(fe.state().size(), ref.state().size());
  }

  void foreachAdamWMatchesTorchAdamWBitExactly() {
    // ForeachAdamW must do exactly torch::optim::AdamW's arithmetic (the reference is LibTorch's own
    // optimizer): groups with and without weight decay, two parameters that miss a step's gradient (their
    // step count then lags, so two bias corrections are in play), a changed lr and beta1 (warmup), 6 steps.
    torch::manual_seed(4);
    const auto nets = twinNets();
    const auto base = torch::optim::AdamWOptions(0.002).betas({0.9, 0.999});
    torch::optim::AdamW ref(threeGroups(*nets.first, base), torch::optim::AdamWOptions(0.002));
    ywb::ForeachAdamW fe(threeGroups(*nets.second, base), torch::optim::AdamWOptions(0.002));
    stepSideBySide<torch::optim::AdamWOptions>(ref, fe, nets, {1, 3}, [](torch::optim::AdamWOptions& o) {
      o.lr(0.0131).betas({0.8, 0.999});
    });
    if (QTest::currentTestFailed()) return;
    QCOMPARE(fe.state().size(), ref.state().size());
    // The state is LibTorch's own kind under LibTorch's keys: the lagging parameters took 5 steps, the
    // others 6, and the second moments agree bit for bit.
    const auto pa = nets.first->parameters(), pb = nets.second->parameters();
    for (size_t i = 0; i < pa.size(); ++i) {
      const auto& r = static_cast<const torch::optim::AdamWParamState&>(
          *ref.state().at(ywb::compat::optimizerStateKey(ref.state(), pa[i])));
      const auto& f = static_cast<const torch::optim::AdamWParamState&>(
          *fe.state().at(ywb::compat::optimizerStateKey(fe.state(), pb[i])));
      QCOMPARE(f.step(), int64_t(i == 1 || i == 3 ? 5 : 6));
      QCOMPARE(f.step(), r.step());
      QVERIFY(at::equal(f.exp_avg_sq(), r.exp_avg_sq()));
    }
  }

  void foreachAdamMatchesTorchAdamBitExactly() {
    // ForeachAdam (optimizer=Adam) against torch::optim::Adam: L2 decay added to the gradient in the decayed
    // group, two parameters that miss step 2 (two bias corrections in play), lr and beta1 changed at step 3.
    torch::manual_seed(5);
    const auto nets = twinNets();
    const auto base = torch::optim::AdamOptions(0.002).betas({0.937, 0.999});
    torch::optim::Adam ref(threeGroups(*nets.first, base), torch::optim::AdamOptions(0.002));
    ywb::ForeachAdam fe(threeGroups(*nets.second, base), torch::optim::AdamOptions(0.002));
    stepSideBySide<torch::optim::AdamOptions>(ref, fe, nets, {1, 3}, [](torch::optim::AdamOptions& o) {
      o.lr(0.0131).betas({0.8, 0.999});
    });
    if (QTest::currentTestFailed()) return;
    QCOMPARE(fe.state().size(), ref.state().size());
  }

  void foreachRmspropMatchesTorchRmspropBitExactly() {
    // ForeachRMSprop (optimizer=RMSProp, built with momentum as Ultralytics does) against
    // torch::optim::RMSprop: decay in one group, a parameter without a gradient at step 2, lr and momentum
    // changed at step 3 (Ultralytics' warmup sets RMSprop's momentum as it sets SGD's).
    torch::manual_seed(6);
    const auto nets = twinNets();
    const auto base = torch::optim::RMSpropOptions(0.01).momentum(0.937);
    torch::optim::RMSprop ref(threeGroups(*nets.first, base), torch::optim::RMSpropOptions(0.01));
    ywb::ForeachRMSprop fe(threeGroups(*nets.second, base), torch::optim::RMSpropOptions(0.01));
    stepSideBySide<torch::optim::RMSpropOptions>(
        ref, fe, nets, {2}, [](torch::optim::RMSpropOptions& o) { o.lr(0.004).momentum(0.8); });
    if (QTest::currentTestFailed()) return;
    QCOMPARE(fe.state().size(), ref.state().size());
  }
};

QTEST_GUILESS_MAIN(TestOptimizers)
#include "test_optimizers.moc"
