// `freeze` (Ultralytics' transfer-learning argument): its text forms and args.yaml form, the model's frozen
// layers (no gradients, BatchNorm statistics fixed while the model trains), and real fine-tuning runs: the
// frozen layers end bit for bit as loaded, the rest trains, and a stopped run resumes with the same layers
// frozen.
#include <torch/torch.h>
#include <QTemporaryDir>
#include <QtTest>

#include "io/safetensors.h"
#include "model/detection_model.h"
#include "support/checkpoint_compare.h"
#include "support/error_of.h"
#include "support/tiny_run.h"
#include "train/freeze_arg.h"
#include "train/model_loader.h"
#include "ywb/model_info.h"
#include "ywb/train_args.h"
#include "ywb/trainer.h"

namespace {

// The layer index of a state-dict name "model.<i>.<rest>" (Ultralytics' naming, which freeze matches), or -1.
int layerOf(const std::string& name) {
  if (name.rfind("model.", 0) != 0) return -1;
  const size_t dot = name.find('.', 6);
  return dot == std::string::npos ? -1 : std::stoi(name.substr(6, dot - 6));
}

// Keeps every log line of a run.
class LogLines : public ywb::TrainObserver {
 public:
  void onLog(const std::string& line) override { log += line + "\n"; }
  std::string log;
};

}  // namespace

class TestFreeze : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void textForms() {
    // Ultralytics takes an int N (layers 0..N-1) or a list; None/0/[] freeze nothing.
    QCOMPARE(ywb::canonicalFreezeText("10"), std::string("10"));
    QCOMPARE(ywb::canonicalFreezeText(" [0, 1,2 ] "), std::string("[0, 1, 2]"));
    QCOMPARE(ywb::canonicalFreezeText("5,0,0"), std::string("[0, 5]"));
    QCOMPARE(ywb::canonicalFreezeText("(3,)"), std::string("[3]"));
    QCOMPARE(ywb::canonicalFreezeText("[7]"), std::string("[7]"));
    for (const char* none : {"", "None", "null", "0", "[]", " "})
      QCOMPARE(ywb::canonicalFreezeText(none), std::string());
    for (const char* bad : {"-1", "abc", "[0, 1", "1.5", "[0,,1]", "99999"}) {
      const QString e = qErrorOf([&] { ywb::canonicalFreezeText(bad); });
      QVERIFY2(e.startsWith(QString("freeze=") + bad) && e.contains("freeze=[0, 1, 2]"), qPrintable(e));
    }
    // The layers, for yolov8n's 23 (0-22).
    QCOMPARE(ywb::frozenLayerList("10", 23), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QCOMPARE(ywb::frozenLayerList("[0, 22]", 23), (std::vector<int>{0, 22}));
    QVERIFY(ywb::frozenLayerList("", 23).empty());
    QVERIFY(qErrorOf([] {
              ywb::frozenLayerList("[23]", 23);
            }).contains("no layer 23 (the model has 23 layers, 0-22)"));
    QVERIFY(qErrorOf([] { ywb::frozenLayerList("24", 23); }).contains("the model has 23 layers"));
    QVERIFY(qErrorOf([] { ywb::frozenLayerList("23", 23); }).contains("nothing would train"));
    QCOMPARE(ywb::layerRangesText({0, 1, 2, 5, 7, 8}), std::string("0-2, 5, 7-8"));
  }

  void argsYamlForms() {
    ywb::TrainArgs a;
    QVERIFY(a.set("freeze", "[3, 0]"));
    QCOMPARE(a.freeze, std::string("[0, 3]"));
    QVERIFY(QString::fromStdString(ywb::trainArgsToYaml(a)).contains("\nfreeze: [0, 3]\n"));
    a.freeze = "";
    QVERIFY(QString::fromStdString(ywb::trainArgsToYaml(a)).contains("\nfreeze: null\n"));
    // Read back in each form Ultralytics writes: a list, an int, null.
    ywb::TrainArgs b;
    QVERIFY(ywb::loadTrainArgsYamlText("freeze: [0, 1, 2]\n", "args.yaml", b).empty());
    QCOMPARE(b.freeze, std::string("[0, 1, 2]"));
    QVERIFY(ywb::loadTrainArgsYamlText("freeze: 10\n", "args.yaml", b).empty());
    QCOMPARE(b.freeze, std::string("10"));
    QVERIFY(ywb::loadTrainArgsYamlText("freeze: null\n", "args.yaml", b).empty());
    QCOMPARE(b.freeze, std::string("10"));  // null keeps what was there, as for every key
    const QString e =
        qErrorOf([&] { ywb::loadTrainArgsYamlText("epochs: 3\nfreeze: [0, x]\n", "a.yaml", b); });
    QVERIFY2(e.startsWith("a.yaml:2: freeze=[0,x]"), qPrintable(e));
  }

  void frozenLayersKeepTheirStatistics() {
    torch::manual_seed(0);
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 2);
    m->freezeLayers({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    m->train();
    std::map<std::string, at::Tensor> before;
    for (const auto& kv : m->named_buffers()) before[kv.key()] = kv.value().clone();
    for (const auto& kv : m->named_parameters()) {
      const int layer = layerOf(kv.key());
      const bool dfl = kv.key().find(".dfl.") != std::string::npos;  // fixed in every model
      QVERIFY2(kv.value().requires_grad() == (layer >= 10 && !dfl), kv.key().c_str());
    }
    const at::Tensor x = torch::rand({2, 3, 64, 64});
    const auto out = m->forward(x);
    at::Tensor sum = at::zeros({});
    for (const auto& o : out) sum = sum + o.sum();
    sum.backward();
    int frozen_bn = 0, trained_bn = 0;
    for (const auto& kv : m->named_buffers()) {
      const int layer = layerOf(kv.key());
      const bool same = kv.value().equal(before.at(kv.key()));
      if (layer < 10) {
        QVERIFY2(same, kv.key().c_str());
        ++frozen_bn;
      } else if (kv.key().find("running_mean") != std::string::npos) {
        QVERIFY2(!same, kv.key().c_str());
        ++trained_bn;
      }
    }
    QVERIFY(frozen_bn > 0 && trained_bn > 0);
    for (const auto& kv : m->named_parameters())
      if (layerOf(kv.key()) < 10) QVERIFY2(!kv.value().grad().defined(), kv.key().c_str());
    // eval() then train() again (what every validation does) keeps them fixed; a copy keeps the list.
    m->eval();
    m->train();
    ywb::model::DetectionModel c = ywb::model::cloneModel(m);
    QCOMPARE(c->frozenLayers(), m->frozenLayers());
    for (const auto& mod : c->layer(3)->modules())
      if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(mod.get())) QVERIFY(!bn->is_training());
    for (const auto& mod : c->layer(12)->modules())
      if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(mod.get())) QVERIFY(bn->is_training());
  }

  void fineTuneKeepsFrozenLayersAndResumes() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {16, 8, 96, 5, 4});
    // The weights to fine-tune: a one-epoch run's checkpoint.
    ywb::TrainArgs base = ywb::test::tinyRunArgs(data, (dir.path() + "/base").toStdString());
    base.epochs = 1;
    const std::string start = ywb::Trainer(base).run().last;
    const ywb::NamedTensors loaded = ywb::readModelTensors(start);  // what model= transfers, by name

    auto fineTune = [&](const std::string& project) {
      ywb::TrainArgs a = ywb::test::tinyRunArgs(data, project);
      a.model = start;
      a.set("freeze", "10");
      return a;
    };
    LogLines log;
    ywb::Trainer full(fineTune((dir.path() + "/full").toStdString()));
    full.setObserver(&log);
    const ywb::TrainSummary s = full.run();
    QCOMPARE(s.epochs_completed, 2);
    const ywb::SafetensorsFile last = ywb::readSafetensors(s.last);
    // Layers 0-9: weights, BatchNorm statistics and counts exactly as loaded in the model, and in its EMA;
    // layers 10-22 trained (some tensor of each trained layer with parameters moved).
    int kept = 0;
    std::set<int> moved;
    for (const auto& [name, t] : loaded) {
      const int layer = layerOf(name);
      if (layer < 0) continue;
      const at::Tensor &now = last.at("model." + name), ema = last.at("ema." + name);
      if (layer < 10) {
        // The model's exactly; the EMA's is an average of that constant, v*d + (1-d)*v rounded as
        // Ultralytics' EMA rounds it: the same value to within an ulp or two.
        QVERIFY2(now.equal(t), name.c_str());
        QVERIFY2(t.is_floating_point() ? ema.allclose(t, 1e-6, 1e-9) : ema.equal(t), name.c_str());
        ++kept;
      } else if (!now.equal(t) && t.is_floating_point()) {
        moved.insert(layer);
      }
    }
    QVERIFY(kept > 100);
    for (int layer : {12, 15, 18, 21, 22}) QVERIFY2(moved.count(layer), qPrintable(QString::number(layer)));
    // The log says what froze and how many parameters train: counted here from the names.
    int64_t trainable = 0, total = 0;
    for (const auto& [name, t] : loaded) {
      if (!t.is_floating_point() || name.find("running_") != std::string::npos) continue;
      total += t.numel();
      if (layerOf(name) >= 10 && name.find(".dfl.") == std::string::npos) trainable += t.numel();
    }
    const QString want =
        QString("freeze=10: layers 0-9 frozen (weights and BatchNorm statistics stay as loaded); ");
    QVERIFY2(log.log.find(want.toStdString()) != std::string::npos, log.log.c_str());
    const std::string counts =
        ywb::withCommas(trainable) + " of " + ywb::withCommas(total) + " parameters train";
    QVERIFY2(log.log.find(counts) != std::string::npos, log.log.c_str());
    // Stopped after its first epoch and resumed: the same layers stay frozen (args.yaml's freeze: 10), so it
    // ends bit for bit where the uninterrupted run ends.
    const ywb::TrainSummary b2 = ywb::test::stopThenResume(fineTune((dir.path() + "/split").toStdString()));
    QCOMPARE(b2.epochs_completed, 2);
    const ywb::SafetensorsFile resumed = ywb::readSafetensors(b2.last);
    QVERIFY(ywb::test::samePrefix(last, resumed, "model."));
    QVERIFY(ywb::test::samePrefix(last, resumed, "ema."));
    QVERIFY(ywb::test::samePrefix(last, resumed, "optim."));
  }

  void badValuesNameTheModel() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {8, 4, 64, 5, 2});
    ywb::TrainArgs a = ywb::test::tinyRunArgs(data, (dir.path() + "/runs").toStdString());
    a.set("freeze", "[3, 30]");
    QVERIFY(qErrorOf([&] {
              ywb::Trainer(a).run();
            }).contains("freeze=[3, 30]: no layer 30 (the model has 23 layers, 0-22)"));
    // Every layer with parameters (all but Upsample 10, 13 and Concat 11, 14, 17, 20) leaves nothing to
    // train.
    a.set("freeze", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 18, 19, 21, 22]");
    QVERIFY(qErrorOf([&] { ywb::Trainer(a).run(); }).contains("nothing would train"));
  }
};

QTEST_GUILESS_MAIN(TestFreeze)
#include "test_freeze.moc"
