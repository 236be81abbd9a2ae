// Parity with Ultralytics' own code: every loss fixture (../shared/fixtures/ultralytics/loss-*.safetensors,
// plus every loss-*.safetensors in the folder named by $YWB_LOSS_FIXTURES) holds a model's weights under
// Ultralytics' names, a batch, the three head outputs of Ultralytics' train-mode forward and its loss items
// (see the fixtures' README). We build the model named in the metadata with its nc, load the weights
// strictly, run our train-mode forward (forwardHeads) and the model's loss (loss::ModelLoss, as the trainer
// and validation get it), and require heads within 1e-4 relative (8.4's, stored per branch: each branch's
// boxes and scores) and loss items within 1e-4 of Ultralytics' numbers. Measured 2026-11-26: 8.3's heads are
// bit-identical; 8.4's (made by another PyTorch build) differ by at most 1.6e-5
// (loss-yolo26n-shapes-seed0-e0's boxes, random weights), 5.5e-7 on the trained loss-yolo26n-trained-e17. A
// fixture named loss-*-seedN holds the weights Ultralytics' model constructor draws after
// torch.manual_seed(N) (fixture README): ours, built after at::manual_seed(N), must be the same tensors bit
// for bit, so that a training seed starts where Ultralytics' starts.
//
// gradientsMatchUltralytics checks the backward pass: every MuSGD fixture (musgd-*.safetensors, 8.4) holds
// `grad1.<name>`, the gradient Ultralytics' trainer took of its loss (YOLO26's end-to-end loss at epoch 0,
// o2m 0.8) on the fixture's images for the parameters of four layers (0, 2, 10: C2PSA's attention, 23: both
// head branches). Ours, from the same seeded initialisation and images, must agree tensor by tensor.
//
// lossOnUltralyticsHeads checks the loss alone, on the head outputs stored in every fixture of 8.3.253 and
// 8.4.52 (../shared/fixtures/ultralytics84: YOLO26's end-to-end loss, reg_max 1, and 8.4's YOLOv8 loss):
// items and total within 1e-5 relative of Ultralytics' logged numbers (measured 2026-11-26: items equal on
// all six; totals equal but loss-yolov8n-coco-seed1's, 9.4e-8 relative, one float step, as before). An 8.3
// fixture runs with 8.4's small-box rule off, as 8.3 computed it.
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
#include "loss/end_to_end_loss.h"
#include "loss/model_loss.h"
#include "loss/o2m_schedule.h"
#include "loss_fixtures.h"
#include "model/detection_model.h"

namespace fs = std::filesystem;

namespace {

using loss_fixtures::branchMaps;
using loss_fixtures::fixtureFiles;
using loss_fixtures::fixtureGains;
using loss_fixtures::isUltralytics84;

// max |a - b| / max |b|: the relative error of a whole tensor.
double relativeError(const at::Tensor& a, const at::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-12);
  return (a - b).abs().max().item<double>() / scale;
}

// One data row per fixture file.
void addFixtureRows(bool with84 = false) {
  QTest::addColumn<QString>("path");
  const auto files = fixtureFiles(with84);
  // The three shared fixtures (yolov8n x2, yolo11n) must be found: an empty run would prove nothing.
  QVERIFY2(files.size() >= 3, "expected the loss-*.safetensors fixtures in ../shared/fixtures/ultralytics");
  for (const auto& f : files)
    QTest::newRow((fs::path(f).parent_path().filename() / fs::path(f).filename()).string().c_str())
        << QString::fromStdString(f);
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

  void everyFixtureMatchesUltralytics_data() { addFixtureRows(/*with84=*/true); }
  void everyFixtureMatchesUltralytics() {
    QFETCH(QString, path);
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    const bool v84 = isUltralytics84(f);
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
    const ywb::model::HeadOutputs heads = model->forwardHeads(f.at("input.images"));
    QCOMPARE(heads.one2many.size(), size_t(3));
    QCOMPARE(heads.one2one.size(), f.contains("expected.one2one.boxes") ? size_t(3) : size_t(0));
    bool identical = true;
    if (!v84) {  // 8.3: the three maps as the model returns them, within 1e-4 relative
      for (size_t i = 0; i < 3; ++i) {
        const at::Tensor& want = f.at("expected.head." + std::to_string(i));
        QCOMPARE(heads.one2many[i].sizes().vec(), want.sizes().vec());
        const double err = relativeError(heads.one2many[i].detach(), want);
        QVERIFY2(err <= 1e-4,
                 ("head " + std::to_string(i) + " relative error " + std::to_string(err)).c_str());
        identical = identical && heads.one2many[i].detach().equal(want);
      }
    } else {  // 8.4: per branch, boxes [N, 4*reg_max, A] and scores [N, nc, A], each within 1e-4 relative
      for (const std::string branch : {"one2many", "one2one"}) {
        const auto& maps = branch == "one2many" ? heads.one2many : heads.one2one;
        if (maps.empty()) continue;
        std::vector<at::Tensor> flat;
        for (const auto& t : maps) flat.push_back(t.detach().flatten(2));
        const at::Tensor all = at::cat(flat, 2);  // [N, 4*reg_max + nc, A]
        const int64_t nbox = 4 * model->regMax();
        const at::Tensor& boxes = f.at("expected." + branch + ".boxes");
        const at::Tensor& scores = f.at("expected." + branch + ".scores");
        QCOMPARE(all.narrow(1, 0, nbox).sizes().vec(), boxes.sizes().vec());
        QCOMPARE(all.narrow(1, nbox, nc).sizes().vec(), scores.sizes().vec());
        const double eb = relativeError(all.narrow(1, 0, nbox), boxes);
        const double es = relativeError(all.narrow(1, nbox, nc), scores);
        qInfo("%s: max relative difference boxes %.2e, scores %.2e", branch.c_str(), eb, es);
        QVERIFY2(eb <= 1e-4 && es <= 1e-4, branch.c_str());
        identical = identical && all.narrow(1, 0, nbox).equal(boxes) && all.narrow(1, nbox, nc).equal(scores);
      }
    }

    // The model's loss as every client gets it (loss::ModelLoss: YOLO26's end-to-end loss, reg_max 1), with
    // the rules of the release that made the fixture; an end-to-end model's branches weighted as recorded.
    const ywb::loss::ModelLoss loss(*model, fixtureGains(meta), /*small_box_rule=*/v84);
    QCOMPARE(loss.endToEnd(), !heads.one2one.empty());
    const double o2m = loss.endToEnd() ? std::stod(meta.at("o2m")) : 1.0;  // "null" for other models
    const auto result = loss(heads, f.at("input.targets"), o2m);
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

  void gradientsMatchUltralytics_data() {
    QTest::addColumn<QString>("path");
    const auto files = loss_fixtures::fixtureFiles(/*with84=*/true, "musgd-");
    QVERIFY2(!files.empty(), "expected musgd-*.safetensors in ../shared/fixtures/ultralytics84");
    for (const auto& f : files)
      QTest::newRow(fs::path(f).filename().string().c_str()) << QString::fromStdString(f);
  }
  void gradientsMatchUltralytics() {
    // The fixture's model is Ultralytics' constructor after torch.manual_seed(seed); ours after
    // at::manual_seed(seed) is the same tensors (initialWeightsMatchUltralyticsSeed), checked again here
    // on the fixture's own `before.*` copies. Train mode (BatchNorm on batch statistics), the model's loss
    // as the trainer gets it (loss::ModelLoss, 8.4's small-box rule) at the first epoch's o2m weight, and
    // the gradient of its total (the weighted sum times the batch size, what Ultralytics' trainer backs).
    QFETCH(QString, path);
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    const auto& meta = f.metadata;
    for (const char* k : {"model", "nc", "seed"})
      QVERIFY2(meta.count(k), (path.toStdString() + " lacks metadata '" + k + "'").c_str());
    at::manual_seed(std::stoull(meta.at("seed")));
    ywb::model::DetectionModel model =
        ywb::model::buildModel(meta.at("model"), std::stoi(meta.at("nc")), modulesOf(meta));
    std::map<std::string, at::Tensor> ours;
    for (const auto& p : model->named_parameters()) ours[p.key()] = p.value();
    model->train();
    const ywb::model::HeadOutputs heads = model->forwardHeads(f.at("input.images"));
    const ywb::loss::ModelLoss loss(*model, fixtureGains(meta), /*small_box_rule=*/true);
    loss(heads, f.at("input.targets"), ywb::loss::O2mSchedule::o2mAt(0, 1)).total.backward();

    // A gradient that is zero by construction (a BatchNorm bias whose output feeds only another
    // normalisation: three in C2PSA's attention) holds rounding residue in both programs (3e-8 to 6e-8 in
    // the fixture, against a largest gradient of 19.4): it passes within 1e-8 of the largest, in absolute
    // terms. Every other tensor, however small (the one-to-many P5 box branch's are ~1e-9 and agree to 1.1e-4
    // of that; the one-to-one P4/P5 box branches are exactly 0 in both), within 5e-4 relative.
    double largest = 0;
    for (const auto& [k, t] : f.tensors)
      if (k.rfind("grad1.", 0) == 0) largest = std::max(largest, t.abs().max().item<double>());
    size_t compared = 0, residue = 0, one2one = 0;
    double worst = 0;
    std::string worst_name = "-";
    for (const auto& [k, want] : f.tensors) {
      if (k.rfind("grad1.", 0) != 0) continue;
      const std::string name = k.substr(6);
      QVERIFY2(ours.count(name), ("we have no parameter " + name).c_str());
      QVERIFY2(ours.at(name).detach().equal(f.at("before." + name)),
               (name + ": our seeded initialisation is not the fixture's").c_str());
      const at::Tensor got = ours.at(name).grad();
      QVERIFY2(got.defined(), (name + ": no gradient reached it").c_str());
      const double err = (got - want).abs().max().item<double>();
      const double rel = err / std::max(want.abs().max().item<double>(), 1e-30);
      // Measured 2026-11-27: at most 1.1e-4 relative; Ultralytics' forward on the fixture's machine already
      // differs from ours by up to 1.6e-5 (everyFixtureMatchesUltralytics).
      if (rel <= 5e-4) {
        if (rel > worst) worst = rel, worst_name = name;
      } else {
        ++residue;
        QVERIFY2(err <= 1e-8 * largest, (name + ": gradient relative error " + std::to_string(rel) +
                                         ", absolute " + std::to_string(err))
                                            .c_str());
      }
      one2one += name.find("one2one") != std::string::npos;
      ++compared;
    }
    qInfo("%s: %zu gradients, largest relative difference %.3g (%s); %zu zero by construction (residue)",
          fs::path(path.toStdString()).filename().c_str(), compared, worst, worst_name.c_str(), residue);
    QVERIFY(compared > 100);
    QVERIFY(residue <= 3);  // only C2PSA's three
    QVERIFY(one2one > 0);   // the one-to-one branch's own gradients are among them
  }

  void lossOnUltralyticsHeads_data() { addFixtureRows(/*with84=*/true); }
  void lossOnUltralyticsHeads() {
    QFETCH(QString, path);
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    const auto& meta = f.metadata;
    for (const char* k : {"nc", "imgsz", "expected_loss_items", "expected_loss_total"})
      QVERIFY2(meta.count(k), (path.toStdString() + " lacks metadata '" + k + "'").c_str());
    ywb::loss::DetectionLossOptions o;
    o.nc = std::stoi(meta.at("nc"));
    o.gains = fixtureGains(meta);
    o.small_box_rule = isUltralytics84(f);  // 8.3 had no small-box rule
    at::Tensor items, total;
    if (f.contains("expected.head.0")) {  // 8.3: the three maps as the model returns them
      const auto r = ywb::loss::DetectionLoss(o)(
          {f.at("expected.head.0"), f.at("expected.head.1"), f.at("expected.head.2")}, f.at("input.targets"));
      items = r.items;
      total = r.total;
    } else {
      const int64_t imgsz = std::stoi(meta.at("imgsz"));
      o.reg_max = f.at("expected.one2many.boxes").size(1) / 4;
      const auto many = branchMaps(f, "one2many", imgsz, o.strides);
      if (f.contains("expected.one2one.boxes")) {
        const ywb::loss::EndToEndLoss loss(o);
        const auto r = loss({many, branchMaps(f, "one2one", imgsz, o.strides)}, f.at("input.targets"),
                            std::stod(meta.at("o2m")));
        items = r.items;
        total = r.total;
      } else {
        const auto r = ywb::loss::DetectionLoss(o)(many, f.at("input.targets"));
        items = r.items;
        total = r.total;
      }
    }
    const auto want = nlohmann::json::parse(meta.at("expected_loss_items")).get<std::vector<double>>();
    QCOMPARE(want.size(), size_t(3));
    std::vector<double> got(3);
    for (size_t i = 0; i < 3; ++i) got[i] = items[int64_t(i)].item<double>();
    got.push_back(total.item<double>());
    std::vector<double> ref = want;
    ref.push_back(std::stod(meta.at("expected_loss_total")));
    const char* names[] = {"box", "cls", "dfl/L1", "total"};
    double worst = 0;
    for (size_t i = 0; i < 4; ++i) {
      const double rel = std::abs(got[i] - ref[i]) / std::max(std::abs(ref[i]), 1e-12);
      worst = std::max(worst, rel);
      QVERIFY2(rel <= 1e-5, (std::string(names[i]) + ": ours " + std::to_string(got[i]) + ", Ultralytics " +
                             std::to_string(ref[i]) + ", relative " + std::to_string(rel))
                                .c_str());
    }
    qInfo("%s: loss on Ultralytics' heads, largest relative difference %.3g",
          fs::path(path.toStdString()).filename().string().c_str(), worst);
  }
};

QTEST_GUILESS_MAIN(TestParityLoss)
#include "test_parity_loss.moc"
