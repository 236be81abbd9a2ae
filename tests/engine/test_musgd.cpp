// MuSGD against Ultralytics 8.4.52's own (../shared/fixtures/ultralytics84, README there): its two optimizer
// steps on a yolo26n, its eight parameter groups, the `auto` rule, resume of both momentum buffers, and the
// Newton–Schulz kernel against ATen's own bfloat16 operators.
#include <torch/torch.h>
#include <QtTest>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "loss_fixtures.h"
#include "support/musgd_fixture.h"
#include "support/newton_schulz_truth.h"
#include "train/checkpoint.h"
#include "train/newton_schulz.h"
#include "train/optimizer_factory.h"
#include "ywb/train_args.h"

namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84";

// A module tree holding the parameters of a state dict under the same names (BatchNorm where Ultralytics'
// Conv has its `bn`): what splitParamGroups sees of the real model.
struct Node : torch::nn::Module {
  Node& child(const std::string& name) {
    for (auto& c : named_children())
      if (c.key() == name) return static_cast<Node&>(*c.value());
    return *register_module(name, std::make_shared<Node>());
  }
  void add(const std::string& path, const at::Tensor& t) {
    const size_t dot = path.find('.');
    const std::string head = path.substr(0, dot);
    if (dot == std::string::npos) {
      register_parameter(head, t.clone());
    } else if (path.substr(dot + 1).find('.') == std::string::npos && head == "bn") {
      bool have = false;
      for (auto& c : named_children()) have = have || c.key() == "bn";
      if (!have) register_module("bn", torch::nn::BatchNorm2d(t.size(0)));
    } else {
      child(head).add(path.substr(dot + 1), t);
    }
  }
};

std::shared_ptr<Node> yolo26nParameters() {
  // The loss fixture of the same model (yolo26n, nc 6) holds every weight under Ultralytics' names.
  const ywb::SafetensorsFile f = ywb::readSafetensors(kDir + "/loss-yolo26n-shapes-seed0-e0.safetensors");
  auto root = std::make_shared<Node>();
  for (const auto& [name, t] : f.tensors) {
    const bool param = name.size() > 7 && (name.rfind(".weight") == name.size() - 7 ||
                                           (name.size() > 5 && name.rfind(".bias") == name.size() - 5));
    if (name.rfind("model.", 0) != 0 || !param || name.find(".dfl.") != std::string::npos) continue;
    root->add(name, t);
  }
  return root;
}

// conv(no bias) -> BN -> conv(bias): every kind of MuSGD group in miniature, named like a model's layers.
std::shared_ptr<Node> tinyModel() {
  auto root = std::make_shared<Node>();
  torch::manual_seed(7);
  root->add("model.0.conv.weight", at::randn({8, 3, 3, 3}) * 0.1);
  root->add("model.0.bn.weight", at::ones({8}));
  root->add("model.1.cv2.0.weight", at::randn({4, 8, 1, 1}) * 0.1);
  root->add("model.1.cv2.0.bias", at::zeros({4}));
  root->add("model.1.cv3.0.weight", at::randn({6, 8, 1, 1}) * 0.1);
  root->add("model.1.cv3.0.bias", at::zeros({6}));
  return root;
}

}  // namespace

class TestMuSGD : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void fixtureStepsMatchUltralytics() {
    // Both of Ultralytics' steps (layers 0, 2, 10 and 23 of a yolo26n, all eight groups) to <= 1e-6 relative
    // (README's requirement); measured here: 0 (bit-identical) for both steps.
    const auto files = loss_fixtures::fixtureFiles(/*with84=*/true, "musgd-");
    QVERIFY2(!files.empty(), qPrintable("no musgd-*.safetensors in " + QString::fromStdString(kDir)));
    for (const auto& path : files) {
      const auto r = ywb::test::replayMuSGDFixture(path);
      qInfo("%s: %zu parameters (%zu Muon); max relative error step 1 %.3g (%s), step 2 %.3g (%s)",
            fs::path(path).filename().c_str(), r.parameters, r.muon_parameters, r.max_rel[0],
            r.worst[0].c_str(), r.max_rel[1], r.worst[1].c_str());
      QVERIFY(r.muon_parameters > 0 && r.muon_parameters < r.parameters);
      QVERIFY2(r.max_rel[0] <= 1e-6, r.worst[0].c_str());
      QVERIFY2(r.max_rel[1] <= 1e-6, r.worst[1].c_str());
    }
  }

  void groupsMatchUltralytics() {
    // The fixture's metadata lists Ultralytics' eight groups with settings and members (lr0 0.01, momentum
    // 0.9, weight decay 5e-4 as given to its build_optimizer): ours from the same parameters must agree.
    const ywb::SafetensorsFile f = ywb::readSafetensors(kDir + "/musgd-yolo26n-shapes-seed0.safetensors");
    const auto expected = nlohmann::json::parse(f.metadata.at("groups"));
    auto model = yolo26nParameters();
    const ywb::ParamGroups g = ywb::splitParamGroups(*model);
    auto opt = ywb::makeOptimizer(g, ywb::chooseOptimizer("MuSGD", 0.01, 0.9, 6, 100), 5e-4);
    std::map<const void*, std::string> name_of;
    for (const auto& p : model->named_parameters()) name_of[p.value().unsafeGetTensorImpl()] = p.key();
    QCOMPARE(opt->param_groups().size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const auto& o = static_cast<const ywb::MuSGDOptions&>(opt->param_groups()[i].options());
      QCOMPARE(o.lr(), e.at("lr").get<double>());
      QCOMPARE(o.momentum(), e.at("momentum").get<double>());
      QCOMPARE(o.weight_decay(), e.at("weight_decay").get<double>());
      QCOMPARE(o.nesterov(), e.at("nesterov").get<bool>());
      QCOMPARE(o.use_muon(), e.at("use_muon").get<bool>());
      QCOMPARE(o.role(), e.at("param_group").get<std::string>());
      std::set<std::string> ours, theirs;
      for (const auto& p : opt->param_groups()[i].params()) ours.insert(name_of.at(p.unsafeGetTensorImpl()));
      for (const auto& m : e.at("members")) theirs.insert(m.get<std::string>());
      QVERIFY2(
          ours == theirs,
          qPrintable(
              QString("group %1: %2 members, Ultralytics %3").arg(i).arg(ours.size()).arg(theirs.size())));
    }
    // The schedule: class groups (0, 2, 4, 6) at 3x, bias groups (4, 5) warm up from warmup_bias_lr, and
    // results.csv reports the rest's bias, muon and bn groups.
    ywb::setScheduledLr(*opt, 6, 0.002);
    QCOMPARE(ywb::groupLr(*opt, 6), 0.006);
    QVERIFY(ywb::isBiasGroup(*opt, 4) && ywb::isBiasGroup(*opt, 5) && !ywb::isBiasGroup(*opt, 0));
    QCOMPARE(ywb::reportedGroups(*opt), (std::array<size_t, 3>{5, 7, 3}));
  }

  void autoRuleOf84() {
    // Ultralytics 8.4: more than 10,000 iterations -> MuSGD(lr 0.01, momentum 0.9); otherwise AdamW as 8.3.
    auto c = ywb::chooseOptimizer("auto", 0.02, 0.937, 6, 10001);
    QCOMPARE(c.name, std::string("MuSGD"));
    QCOMPARE(c.lr, 0.01);
    QCOMPARE(c.momentum, 0.9);
    QVERIFY(c.auto_chosen);
    QCOMPARE(ywb::chooseOptimizer("auto", 0.02, 0.937, 6, 10000).name, std::string("AdamW"));
    c = ywb::chooseOptimizer("MuSGD", 0.02, 0.937, 6, 100);
    QCOMPARE(c.lr, 0.02);
    QVERIFY(!c.auto_chosen);
    // One list of names: the argument table offers exactly the optimizers chooseOptimizer accepts.
    for (const auto& spec : ywb::trainArgSpecs())
      if (spec.name == "optimizer") QCOMPARE(spec.choices, ywb::optimizerNames());
    ywb::TrainArgs a;
    QVERIFY(a.set("optimizer", "MuSGD"));
    a.validate();
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::chooseOptimizer("Muon", 0.01, 0.9, 6, 1));
  }

  void resumeContinuesBitExactly() {
    // Two steps, save (both buffers of every parameter), restore into a fresh copy, two more steps: equal to
    // four uninterrupted steps bit for bit.
    auto a = tinyModel(), b = tinyModel();
    auto make = [](Node& m) {
      return ywb::makeOptimizer(ywb::splitParamGroups(m), ywb::chooseOptimizer("MuSGD", 0.01, 0.9, 6, 1),
                                5e-4);
    };
    auto opt_a = make(*a);
    torch::manual_seed(11);
    std::vector<std::vector<at::Tensor>> grads(4);
    for (auto& step : grads)
      for (const auto& p : a->parameters()) step.push_back(at::randn_like(p));
    auto run = [&](Node& m, torch::optim::Optimizer& opt, int from, int to) {
      for (int s = from; s < to; ++s) {
        const auto params = m.parameters();
        for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = grads[size_t(s)][i].clone();
        opt.step();
      }
    };
    run(*a, *opt_a, 0, 2);
    const std::string path = (fs::temp_directory_path() / "ywb_test_musgd_state.safetensors").string();
    ywb::saveCheckpoint(path, {a.get(), nullptr, opt_a.get(), false, {}});
    const ywb::SafetensorsFile file = ywb::readCheckpoint(path);
    int muon_buffers = 0, sgd_buffers = 0;
    for (const auto& [name, t] : file.tensors) {
      muon_buffers += name.find(".muon_buffer") != std::string::npos;
      sgd_buffers += name.find(".momentum_buffer") != std::string::npos;
    }
    QCOMPARE(sgd_buffers, int(a->parameters().size()));  // every parameter
    QCOMPARE(muon_buffers, 3);                           // the three conv weights
    auto opt_b = make(*b);
    ywb::restoreCheckpoint(file, {b.get(), nullptr, opt_b.get(), false, {}});
    run(*a, *opt_a, 2, 4);
    run(*b, *opt_b, 2, 4);
    const auto pa = a->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pa.size(); ++i) QVERIFY2(at::equal(pa[i], pb[i]), qPrintable(QString::number(i)));
    fs::remove(path);
  }

  void kernelEqualsAtenBf16Operators() {
    // The vectorised kernel against the same iteration written with ATen's bfloat16 operators (what
    // Ultralytics runs), oneDNN's bfloat16 matmul off as on the reference's CPU: bit-identical for wide,
    // tall, square, one-row and batched matrices.
    const bool mkldnn = at::globalContext().userEnabledMkldnn();
    at::globalContext().setUserEnabledMkldnn(false);
    torch::manual_seed(3);
    for (const auto& [batch, rows, cols] :
         std::vector<std::array<int64_t, 3>>{{1, 16, 27}, {3, 40, 7}, {2, 33, 33}, {1, 1, 9}, {2, 70, 130}}) {
      std::vector<at::Tensor> u;
      for (int64_t i = 0; i < batch; ++i) u.push_back(at::randn({rows, cols}));
      const auto ours = ywb::newtonSchulz5(u);
      for (int64_t i = 0; i < batch; ++i)
        QVERIFY2(at::equal(ours[size_t(i)], ywb::newtonSchulz5Reference(u[size_t(i)])),
                 qPrintable(QString("%1x%2").arg(rows).arg(cols)));
    }
    at::globalContext().setUserEnabledMkldnn(mkldnn);
  }

  void paddedBatchesMatchEachMatrixAlone() {
    // The CUDA path (zero-padded buckets of bmm products), run here on the CPU, for tensors of every kind:
    // wide, tall (a 1x1 conv with more outputs than inputs), square, 4-d channels-last, one row. Each result
    // is measured against the same iteration in float64 (exact enough to be the truth here): it must be as
    // close to it as the reference's own bfloat16 arithmetic on that matrix alone is (within 1.5x, plus a
    // bfloat16 unit at 0.5). A matrix mixed up with its bucket's padding or neighbours, a transposition gone
    // wrong or a layout read in memory order instead of logical order misses by far more.
    torch::manual_seed(5);
    std::vector<at::Tensor> t{at::randn({16, 27}),
                              at::randn({40, 7}),
                              at::randn({33, 33}),
                              at::randn({32, 16, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast),
                              at::randn({64, 16, 1, 1}).contiguous(at::MemoryFormat::ChannelsLast),
                              at::randn({1, 9}),
                              at::randn({24, 8, 3, 3})};
    const auto batched = ywb::newtonSchulz5Batched(t);
    QCOMPARE(batched.size(), t.size());
    for (size_t i = 0; i < t.size(); ++i) {
      QCOMPARE(batched[i].sizes(), t[i].sizes());
      const at::Tensor m = t[i].reshape({t[i].size(0), -1});
      const double ours = ywb::test::newtonSchulzError(batched[i], t[i]);
      const double ref = ywb::test::newtonSchulzError(ywb::newtonSchulz5Reference(m), t[i]);
      qInfo("%zu (%lldx%lld): max error batched %.4g, reference %.4g", i, (long long)m.size(0),
            (long long)m.size(1), ours, ref);
      QVERIFY2(ours <= 1.5 * ref + 0.004, qPrintable(QString::number(i)));
    }
  }
};

QTEST_GUILESS_MAIN(TestMuSGD)
#include "test_musgd.moc"
