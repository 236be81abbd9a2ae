// The trainer's optimizers against LibTorch's own: ForeachSGD and ForeachAdamW run the same arithmetic as
// torch::optim::SGD / AdamW as a few multi-tensor kernels per group; the reference is LibTorch's optimizer
// stepping an identical copy of the model with the same gradients, compared bit for bit.
#include <torch/torch.h>
#include <QtTest>

#include "core/torch_compat.h"
#include "train/foreach_adamw.h"
#include "train/foreach_sgd.h"

namespace {

// conv(no bias) -> BN -> conv(bias): the three Ultralytics parameter groups in miniature.
std::shared_ptr<torch::nn::SequentialImpl> tinyNet() {
  return std::make_shared<torch::nn::SequentialImpl>(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), torch::nn::BatchNorm2d(8),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 1).bias(true)));
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
    auto a = tinyNet(), b = tinyNet();
    {
      torch::NoGradGuard ng;
      for (size_t i = 0; i < a->parameters().size(); ++i) b->parameters()[i].copy_(a->parameters()[i]);
    }
    auto groupsOf = [](torch::nn::SequentialImpl& n) {
      auto p = n.parameters();  // conv0.w, bn.w, bn.b, conv2.w, conv2.b
      std::vector<torch::optim::OptimizerParamGroup> g;
      auto opt = [](double wd) {
        return std::make_unique<torch::optim::SGDOptions>(
            torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(wd));
      };
      g.emplace_back(std::vector<at::Tensor>{p[2], p[4]}, opt(0.0));
      g.emplace_back(std::vector<at::Tensor>{p[0], p[3]}, opt(5e-4));
      g.emplace_back(std::vector<at::Tensor>{p[1]}, opt(0.0));
      return g;
    };
    torch::optim::SGD ref(groupsOf(*a), torch::optim::SGDOptions(0.01));
    ywb::ForeachSGD fe(groupsOf(*b), torch::optim::SGDOptions(0.01));
    for (int step = 0; step < 6; ++step) {
      const auto pa = a->parameters(), pb = b->parameters();
      for (size_t i = 0; i < pa.size(); ++i) {
        if (step == 2 && i == 1) {  // no gradient this step: both must skip it
          pa[i].mutable_grad() = at::Tensor();
          pb[i].mutable_grad() = at::Tensor();
          continue;
        }
        const at::Tensor g = at::randn_like(pa[i]);
        pa[i].mutable_grad() = g.clone();
        pb[i].mutable_grad() = g.clone();
      }
      if (step == 3) {
        for (auto* o :
             {static_cast<torch::optim::Optimizer*>(&ref), static_cast<torch::optim::Optimizer*>(&fe)}) {
          for (auto& grp : o->param_groups()) {
            static_cast<torch::optim::SGDOptions&>(grp.options()).lr(0.037).momentum(0.8);
          }
        }
      }
      ref.step();
      fe.step();
      for (size_t i = 0; i < pa.size(); ++i)
        QVERIFY2(at::equal(pa[i], pb[i]), qPrintable(QString("step %1 param %2").arg(step).arg(i)));
    }
    QCOMPARE(fe.state().size(), ref.state().size());
  }

  void foreachAdamWMatchesTorchAdamWBitExactly() {
    // ForeachAdamW must do exactly torch::optim::AdamW's arithmetic (the reference is LibTorch's own
    // optimizer): groups with and without weight decay, a parameter that misses a step's gradient (its
    // step count then lags, so two bias corrections are in play), a changed lr and beta1 (warmup), 6 steps.
    torch::manual_seed(4);
    auto a = tinyNet(), b = tinyNet();
    {
      torch::NoGradGuard ng;
      for (size_t i = 0; i < a->parameters().size(); ++i) b->parameters()[i].copy_(a->parameters()[i]);
    }
    auto groupsOf = [](torch::nn::SequentialImpl& n) {
      auto p = n.parameters();
      std::vector<torch::optim::OptimizerParamGroup> g;
      auto opt = [](double wd) {
        return std::make_unique<torch::optim::AdamWOptions>(
            torch::optim::AdamWOptions(0.002).betas({0.9, 0.999}).weight_decay(wd));
      };
      g.emplace_back(std::vector<at::Tensor>{p[2], p[4]}, opt(0.0));
      g.emplace_back(std::vector<at::Tensor>{p[0], p[3]}, opt(5e-4));
      g.emplace_back(std::vector<at::Tensor>{p[1]}, opt(0.0));
      return g;
    };
    torch::optim::AdamW ref(groupsOf(*a), torch::optim::AdamWOptions(0.002));
    ywb::ForeachAdamW fe(groupsOf(*b), torch::optim::AdamWOptions(0.002));
    for (int step = 0; step < 6; ++step) {
      const auto pa = a->parameters(), pb = b->parameters();
      for (size_t i = 0; i < pa.size(); ++i) {
        if (step == 2 && (i == 1 || i == 3)) {  // no gradient this step: both skip it, its count lags
          pa[i].mutable_grad() = at::Tensor();
          pb[i].mutable_grad() = at::Tensor();
          continue;
        }
        const at::Tensor g = at::randn_like(pa[i]);
        pa[i].mutable_grad() = g.clone();
        pb[i].mutable_grad() = g.clone();
      }
      if (step == 3) {
        for (auto* o :
             {static_cast<torch::optim::Optimizer*>(&ref), static_cast<torch::optim::Optimizer*>(&fe)}) {
          for (auto& grp : o->param_groups()) {
            static_cast<torch::optim::AdamWOptions&>(grp.options()).lr(0.0131).betas({0.8, 0.999});
          }
        }
      }
      ref.step();
      fe.step();
      for (size_t i = 0; i < pa.size(); ++i)
        QVERIFY2(at::equal(pa[i], pb[i]), qPrintable(QString("step %1 param %2").arg(step).arg(i)));
    }
    QCOMPARE(fe.state().size(), ref.state().size());
    // The state is LibTorch's own kind under LibTorch's keys: the lagging parameters took 5 steps, the
    // others 6, and the second moments agree bit for bit.
    const auto pa = a->parameters(), pb = b->parameters();
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
};

QTEST_GUILESS_MAIN(TestOptimizers)
#include "test_optimizers.moc"
