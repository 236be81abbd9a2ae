// Parity with Ultralytics' own code: every loss fixture (../shared/fixtures/ultralytics/loss-*.safetensors,
// plus every loss-*.safetensors in the folder named by $YWB_LOSS_FIXTURES) holds a model's weights under
// Ultralytics' names, a batch, the three head outputs of Ultralytics' train-mode forward and its loss items
// (see the fixtures' README). We build the model named in the metadata with its nc, load the weights
// strictly, run our train-mode forward and loss, and require heads within 1e-4 relative and loss items
// within 1e-4 of Ultralytics' numbers. A fixture named loss-*-seedN holds the weights Ultralytics' model
// constructor draws after torch.manual_seed(N) (fixture README): ours, built after at::manual_seed(N), must
// be the same tensors bit for bit, so that a training seed starts where Ultralytics' starts.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "io/safetensors.h"
#include "io/state_dict.h"
#include "loss/detection_loss.h"
#include "model/detection_model.h"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> fixtureFiles() {
  std::vector<std::string> dirs{std::string(YW_SHARED_DIR) + "/fixtures/ultralytics"};
  if (const char* extra = std::getenv("YWB_LOSS_FIXTURES"); extra && *extra) dirs.emplace_back(extra);
  std::vector<std::string> files;
  for (const auto& d : dirs) {
    std::vector<std::string> here;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("loss-", 0) == 0 && e.path().extension() == ".safetensors")
        here.push_back(e.path().string());
    }
    if (ec) qWarning("cannot list %s: %s", d.c_str(), ec.message().c_str());
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

// max |a - b| / max |b|: the relative error of a whole tensor.
double relativeError(const at::Tensor& a, const at::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-12);
  return (a - b).abs().max().item<double>() / scale;
}

// One data row per fixture file.
void addFixtureRows() {
  QTest::addColumn<QString>("path");
  const auto files = fixtureFiles();
  // The three shared fixtures (yolov8n x2, yolo11n) must be found: an empty run would prove nothing.
  QVERIFY2(files.size() >= 3, "expected the loss-*.safetensors fixtures in ../shared/fixtures/ultralytics");
  for (const auto& f : files)
    QTest::newRow(fs::path(f).filename().string().c_str()) << QString::fromStdString(f);
}

// The module form of the Ultralytics release that made a fixture (its metadata `source`, e.g. "ultralytics
// 8.3.253 DetectionModel ..."): 8.3's SPPF keeps SiLU and its box bias starts at 1.0.
std::string modulesOf(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("source");
  return ywb::model::ultralyticsModulesOf(it == meta.end() ? "" : it->second);
}

}  // namespace

class TestParityLoss : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initialWeightsMatchUltralyticsSeed_data() { addFixtureRows(); }

  void initialWeightsMatchUltralyticsSeed() {
    QFETCH(QString, path);
    std::smatch m;
    const std::string name = fs::path(path.toStdString()).stem().string();
    if (!std::regex_search(name, m, std::regex("-seed([0-9]+)$"))) QSKIP("not a seeded initialisation");
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    at::manual_seed(std::stoull(m[1].str()));
    ywb::model::DetectionModel model =
        ywb::model::buildModel(f.metadata.at("model"), std::stoi(f.metadata.at("nc")), modulesOf(f.metadata));
    std::map<std::string, at::Tensor> ours;
    for (const auto& p : model->named_parameters()) ours[p.key()] = p.value();
    for (const auto& b : model->named_buffers()) ours[b.key()] = b.value();
    size_t compared = 0;
    for (const auto& [k, t] : f.tensors) {
      if (k.rfind("model.", 0) != 0) continue;
      QVERIFY2(ours.count(k), ("we have no " + k).c_str());
      QVERIFY2(ours.at(k).sizes() == t.sizes() && ours.at(k).to(t.scalar_type()).equal(t),
               ("initial " + k + " differs from Ultralytics' for the same seed").c_str());
      ++compared;
    }
    QCOMPARE(compared, ours.size());  // every tensor of ours was in the fixture
  }

  void everyFixtureMatchesUltralytics_data() { addFixtureRows(); }
  void everyFixtureMatchesUltralytics() {
    QFETCH(QString, path);
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    const auto& meta = f.metadata;
    for (const char* k : {"model", "nc", "expected_loss_items"})
      QVERIFY2(meta.count(k), (path.toStdString() + " lacks metadata '" + k + "'").c_str());
    const int nc = std::stoi(meta.at("nc"));
    ywb::model::DetectionModel model = ywb::model::buildModel(meta.at("model"), nc, modulesOf(meta));
    ywb::NamedTensors weights;
    for (const auto& [k, t] : f.tensors)
      if (k.rfind("model.", 0) == 0) weights.emplace_back(k, t);
    const ywb::StateDictReport r = ywb::loadStateDict(*model, weights, /*strict=*/true);
    QCOMPARE(r.transferred, r.total);

    model->train();  // BatchNorm on batch statistics, as the fixture's forward
    const auto heads = model->forward(f.at("input.images"));
    QCOMPARE(heads.size(), size_t(3));
    bool identical = true;
    for (size_t i = 0; i < 3; ++i) {
      const at::Tensor& want = f.at("expected.head." + std::to_string(i));
      QCOMPARE(heads[i].sizes().vec(), want.sizes().vec());
      const double err = relativeError(heads[i].detach(), want);
      QVERIFY2(err <= 1e-4, ("head " + std::to_string(i) + " relative error " + std::to_string(err)).c_str());
      identical = identical && heads[i].detach().equal(want);
    }

    ywb::loss::LossGains gains;
    if (meta.count("hyp")) {
      const auto hyp = nlohmann::json::parse(meta.at("hyp"));
      gains.box = hyp.value("box", gains.box);
      gains.cls = hyp.value("cls", gains.cls);
      gains.dfl = hyp.value("dfl", gains.dfl);
    }
    const ywb::loss::DetectionLoss loss(model, gains);
    const auto result = loss(heads, f.at("input.targets"));
    const auto want = nlohmann::json::parse(meta.at("expected_loss_items")).get<std::vector<double>>();
    QCOMPARE(want.size(), size_t(3));
    const char* names[] = {"box", "cls", "dfl"};
    for (int64_t i = 0; i < 3; ++i) {
      const double got = result.items[i].item<double>();
      QVERIFY2(std::abs(got - want[size_t(i)]) <= 1e-4 * std::max(1.0, std::abs(want[size_t(i)])),
               (std::string(names[i]) + ": ours " + std::to_string(got) + ", Ultralytics " +
                std::to_string(want[size_t(i)]))
                   .c_str());
    }
    if (meta.count("expected_loss_total")) {
      const double total = std::stod(meta.at("expected_loss_total"));
      QVERIFY(std::abs(result.total.item<double>() - total) <= 1e-4 * std::max(1.0, std::abs(total)));
    }
    qInfo("%s: heads %s", fs::path(path.toStdString()).filename().string().c_str(),
          identical ? "bit-identical" : "within tolerance (not bit-identical)");
  }
};

QTEST_GUILESS_MAIN(TestParityLoss)
#include "test_parity_loss.moc"
