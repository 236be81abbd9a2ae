// Tests of the .pt reader on Ultralytics' own checkpoints (../shared/fixtures/ultralytics) and its torch
// layer: state-dict names and shapes against Ultralytics' state dict of the same architecture (the loss
// fixtures' model.* tensors), metadata against the dataset's data.yaml, the model built from the checkpoint's
// yaml dict, strided/shared storages, transfer (pretrained=, model=X.pt) and the CLI verbs.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "core/atomic_file.h"
#include "io/pt_weights.h"
#include "io/state_dict.h"
#include "model/detection_model.h"
#include "pt_test_util.h"
#include "train/model_loader.h"
#include "ywb/dataset.h"
#include "ywb/error.h"

namespace {

const QString kDir = QString(YW_SHARED_DIR) + "/fixtures/ultralytics";
std::string fixture(const char* name) {
  return (kDir + "/" + name).toStdString();
}

// Ultralytics' own state dict names and shapes for an architecture: the model.* tensors of a loss fixture.
std::vector<std::pair<std::string, std::vector<int64_t>>> referenceLayout(const char* loss_fixture) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& [name, t] : ywb::readSafetensors(fixture(loss_fixture)).tensors)
    if (name.rfind("model.", 0) == 0) out.emplace_back(name, t.sizes().vec());
  return out;
}

void compareLayout(const ywb::NamedTensors& got, const char* loss_fixture) {
  const auto want = referenceLayout(loss_fixture);
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    QCOMPARE(got[i].first, want[i].first);
    QCOMPARE(got[i].second.sizes().vec(), want[i].second);
    // Ultralytics strips checkpoints to fp16; BatchNorm's counter stays int64.
    const bool counter = got[i].first.find("num_batches_tracked") != std::string::npos;
    QCOMPARE(got[i].second.scalar_type(), counter ? at::kLong : at::kHalf);
  }
}

}  // namespace

class TestIoPtFixtures : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void yolov8nCheckpoint() {
    const std::string path = fixture("yolov8n-shapes.pt");
    const ywb::SafetensorsFile f = ywb::readPtWeights(path);
    compareLayout(f.tensors, "loss-yolov8n-shapes-seed0.safetensors");  // 355 tensors
    const auto& m = f.metadata;
    // The dataset it was trained on names the classes (fixture README: trained on shapes/).
    const auto data = ywb::loadDataConfig((kDir + "/shapes/data.yaml").toStdString());
    std::string names = "[";
    for (size_t i = 0; i < data.names.size(); ++i) names += (i ? ",\"" : "\"") + data.names[i] + "\"";
    QCOMPARE(m.at("names"), names + "]");
    QCOMPARE(m.at("nc"), std::to_string(data.names.size()));
    QCOMPARE(m.at("imgsz"), std::string("128"));  // README: imgsz 128
    QCOMPARE(m.at("ultralytics_version"), std::string("8.3.253"));
    QCOMPARE(m.at("epoch"), std::string("-1"));  // a final, stripped checkpoint
    QVERIFY(m.at("yaml").find("\"yaml_file\":\"yolov8n.yaml\"") != std::string::npos);

    // The model built from the checkpoint's own yaml dict takes every tensor strictly, values widened
    // exactly.
    const ywb::LoadedModel lm = ywb::loadModelWeights(path, at::Device(at::kCPU));
    QCOMPARE(lm.names, data.names);
    QCOMPARE(lm.imgsz, 128);
    QCOMPARE(lm.model->nc(), 6);
    const auto sd = ywb::namedStateDict(*lm.model);
    QCOMPARE(sd.size(), f.tensors.size());
    for (size_t i = 0; i < sd.size(); ++i) {
      QCOMPARE(sd[i].first, f.tensors[i].first);
      QVERIFY2(sd[i].second.equal(f.tensors[i].second.to(sd[i].second.scalar_type())), sd[i].first.c_str());
    }
  }

  void yolo11nCheckpointStructure() {
    // YOLO11 modules are built by another part of the engine; here the state dict is checked structurally.
    const ywb::SafetensorsFile f = ywb::readPtWeights(fixture("yolo11n-shapes.pt"));
    compareLayout(f.tensors, "loss-yolo11n-shapes-seed0.safetensors");  // 499 tensors
    QVERIFY(f.metadata.at("yaml").find("\"C3k2\"") != std::string::npos);
    QVERIFY(f.metadata.at("yaml").find("\"scale\":\"n\"") != std::string::npos);
    QCOMPARE(f.metadata.at("nc"), std::string("6"));
  }

  void stridedAndSharedStorages() {
    // One F32 storage [0, 1, 2, 3, 4, 5] read by two tensors: a = offset 1, size (2,), stride (2,) -> [1, 3];
    // b = size (3, 2), stride (1, 3) -> b[i][j] = s[i + 3j] = [[0, 3], [1, 4], [2, 5]] (a transposed view).
    pt_test::Pkl p;
    p.raw({0x80, 2, '}', '('});  // PROTO 2, EMPTY_DICT, MARK
    auto tensor = [&](int offset, std::initializer_list<int> size, std::initializer_list<int> stride) {
      p.global("torch._utils", "_rebuild_tensor_v2").raw({'(', '('});  // GLOBAL, MARK args, MARK pid
      p.str("storage").global("torch", "FloatStorage").str("s").str("cpu").integer(6).raw({'t', 'Q'});
      p.integer(offset).raw({'('});
      for (int x : size) p.integer(x);
      p.raw({'t', '('});
      for (int x : stride) p.integer(x);
      p.raw({'t', 0x89, 'N', 't', 'R'});  // TUPLE, NEWFALSE, NONE (hooks), TUPLE, REDUCE
    };
    p.str("a");
    tensor(1, {2}, {2});
    p.str("b");
    tensor(0, {3, 2}, {1, 3});
    p.raw({'u', '.'});  // SETITEMS, STOP
    std::string floats;
    for (float v : {0.f, 1.f, 2.f, 3.f, 4.f, 5.f}) floats.append(reinterpret_cast<const char*>(&v), 4);
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/sd.bin").toStdString();  // no .pt extension: found by signature
    ywb::writeFileAtomic(path, pt_test::zip({{"sd/data.pkl", p.b}, {"sd/data/s", floats}}));
    const ywb::SafetensorsFile f = ywb::readWeightsFile(path);
    QCOMPARE(f.tensors.size(), size_t(2));
    QVERIFY(f.tensors[0].second.equal(at::tensor({1.f, 3.f})));
    QVERIFY(f.tensors[1].second.equal(at::tensor({0.f, 3.f, 1.f, 4.f, 2.f, 5.f}).view({3, 2})));
    QVERIFY(f.tensors[1].second.is_contiguous());
    // A plain state dict has no model configuration: inference says how to use it instead.
    try {
      ywb::loadModelWeights(path, at::Device(at::kCPU));
      QFAIL("a state dict cannot rebuild a model");
    } catch (const ywb::Error& e) {
      QVERIFY2(std::string(e.what()).find("plain PyTorch state dict") != std::string::npos, e.what());
    }
  }

  void transferByNameAndShape() {
    const ywb::NamedTensors t = ywb::readModelTensors(fixture("yolov8n-shapes.pt"));
    auto same = ywb::model::buildModel("yolov8n.yaml", 6);
    QCOMPARE(ywb::loadStateDict(*same, t, false).summary().rfind("transferred 355/355", 0), size_t(0));
    // With 80 classes the last conv of each of the 3 class branches (weight + bias) no longer fits: 6
    // skipped.
    auto coco = ywb::model::buildModel("yolov8n.yaml", 80);
    const ywb::StateDictReport r = ywb::loadStateDict(*coco, t, false);
    QCOMPARE(r.transferred, 349);
    QCOMPARE(r.mismatched.size(), size_t(6));
  }

  void cliVerbs() {
    const QString pt = kDir + "/yolov8n-shapes.pt";
    CliResult r = ywbRun({"weights", "info", "weights=" + pt, "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["container"].toString(), QString("pytorch"));
    QCOMPARE(j["tensor_count"].toInt(), 355);
    QCOMPARE(j["metadata"].toObject()["ultralytics_version"].toString(), QString("8.3.253"));
    QTemporaryDir dir;
    const QString bad = dir.path() + "/bad.pt";
    ywb::writeFileAtomic(bad.toStdString(), "not a checkpoint");
    r = ywbRun({"weights", "info", "weights=" + bad});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("bad.pt: not a PyTorch checkpoint"), r.err.constData());
    // `ywb val` on the checkpoint as a user runs it (its numbers are checked by the validation tests).
    r = ywbRun({"val", "weights=" + pt, "data=" + kDir + "/shapes/data.yaml", "imgsz=128", "device=cpu",
                "project=" + dir.path()});
    QVERIFY2(r.code == 0, (r.out + r.err).constData());
    QVERIFY2(r.out.contains("mAP50-95"), r.out.constData());
  }

  void trainFineTunesFromPt() {
    // `ywb train model=X.pt`: the checkpoint's architecture with the data's classes (6, like shapes/), all
    // its tensors transferred; the run's checkpoint (model yaml stored as the .pt's JSON text) loads again.
    QTemporaryDir dir;
    CliResult r = ywbRun({"dataset", "synth", "out=" + dir.path() + "/d", "train=8", "val=4", "imgsz=64"});
    QVERIFY2(r.code == 0, r.err.constData());
    r = ywbRun({"train", "model=" + kDir + "/yolov8n-shapes.pt", "data=" + dir.path() + "/d/data.yaml",
                "epochs=1", "imgsz=64", "batch=4", "workers=0", "device=cpu", "project=" + dir.path(),
                "name=ft"});
    QVERIFY2(r.code == 0, (r.out + r.err).constData());
    QVERIFY2((r.out + r.err).contains("yolov8n-shapes.pt: transferred 355/355"), (r.out + r.err).constData());
    const auto lm = ywb::loadModelWeights((dir.path() + "/ft/weights/last.safetensors").toStdString(),
                                          at::Device(at::kCPU));
    QCOMPARE(lm.model->nc(), 6);
  }
};

QTEST_GUILESS_MAIN(TestIoPtFixtures)
#include "test_io_pt_fixtures.moc"
