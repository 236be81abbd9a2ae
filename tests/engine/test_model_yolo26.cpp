// Tests of Ultralytics 8.4's architecture (issue 32): YOLO26 from its YAML (parameter counts of both heads
// and fused, as Ultralytics 8.4.52 reports them), the end-to-end head (one-to-one branches on detached
// features, no DFL), SPPF's 8.4 form, NMS-free post-processing worked by hand, 8.4 checkpoints rebuilt as
// their pickled modules say (../shared/fixtures/ultralytics84) and 8.3 ones unchanged, the messages for
// what cannot be built, and the head's score maps (Feature maps tab) against the detections of the same
// weights.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>
#include <set>

#include "data/image_io.h"
#include "eval/end2end.h"
#include "export/weights_export.h"
#include "io/pt_architecture.h"
#include "io/safetensors.h"
#include "io/state_dict.h"
#include "model/detection_model.h"
#include "model/sppf.h"
#include "support/error_of.h"
#include "train/model_loader.h"
#include "ywb/error.h"
#include "ywb/feature_maps.h"
#include "ywb/inference.h"
#include "ywb/model_info.h"
#include "ywb/model_loading.h"
#include "ywb/weights.h"

using namespace ywb::model;

namespace {

const std::string kUltra = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics";
const std::string kUltra84 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84";

}  // namespace

class TestModelYolo26 : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Ultralytics 8.4.52's counts for yolo26{n,s,m,l,x}.yaml at 80 classes (issue 32): unfused with both head
  // branches, and fused (BatchNorm folded into the convolutions, the one-to-many branches dropped).
  void parameterCountsOfEveryScale() {
    const struct {
      const char* name;
      int64_t params, fused;
    } expected[] = {{"yolo26n.yaml", 2572280, 2408932},
                    {"yolo26s.yaml", 10009784, 9496140},
                    {"yolo26m.yaml", 21896248, 20411132},
                    {"yolo26l.yaml", 26299704, 24807420},
                    {"yolo26x.yaml", 58993368, 55725948}};
    for (const auto& e : expected) {
      const ywb::ModelInfo info = ywb::modelInfo(e.name, 80, 640);
      QVERIFY2(info.parameters == e.params,
               (std::string(e.name) + " " + std::to_string(info.parameters)).c_str());
      QVERIFY2(info.fused_parameters == e.fused,
               (std::string(e.name) + " fused " + std::to_string(info.fused_parameters)).c_str());
      QVERIFY(info.end2end);
      QCOMPARE(info.reg_max, 1);
      // The two head branches are copies: the same size.
      QCOMPARE(info.head_one2one_parameters, info.head_one2many_parameters);
    }
    const std::string text = ywb::modelInfoText(ywb::modelInfo("yolo26n.yaml", 80, 640));
    QVERIFY2(text.find("one-to-one branches") != std::string::npos, text.c_str());
    QVERIFY2(text.find("one-to-many branches") != std::string::npos, text.c_str());
  }

  // The state dict of our yolo26n (nc 6) has exactly Ultralytics 8.4.52's keys and shapes in its order (the
  // loss fixture holds its weights), and a train-mode forward on the fixture's weights and images gives its
  // recorded head outputs for both branches (expected.<branch>.boxes/scores: [N, 4, A] and [N, nc, A]).
  void keysAndTrainForwardEqualUltralytics() {
    const ywb::SafetensorsFile f = ywb::readSafetensors(kUltra84 + "/loss-yolo26n-trained-e17.safetensors");
    DetectionModel m = buildModel("yolo26n.yaml", 6);
    std::vector<std::string> theirs, ours;
    ywb::NamedTensors weights;
    for (const auto& [k, t] : f.tensors) {
      if (k.rfind("model.", 0) != 0) continue;
      theirs.push_back(k);
      weights.emplace_back(k, t);
    }
    for (const auto& [k, t] : ywb::namedStateDict(*m)) ours.push_back(k);
    QCOMPARE(ours, theirs);
    const ywb::StateDictReport r = ywb::loadStateDict(*m, weights, /*strict=*/true);
    QCOMPARE(r.transferred, r.total);
    m->train();
    const HeadOutputs h = m->forwardHeads(f.at("input.images"));
    QCOMPARE(h.one2many.size(), size_t(3));
    QCOMPARE(h.one2one.size(), size_t(3));
    for (const char* branch : {"one2many", "one2one"}) {
      const auto& maps = std::string(branch) == "one2many" ? h.one2many : h.one2one;
      std::vector<at::Tensor> flat;
      for (const auto& t : maps) flat.push_back(t.flatten(2));
      const at::Tensor all = at::cat(flat, 2);  // [N, 4 + nc, A]
      const at::Tensor boxes = f.at(std::string("expected.") + branch + ".boxes");
      const at::Tensor scores = f.at(std::string("expected.") + branch + ".scores");
      const double db =
          (all.narrow(1, 0, 4) - boxes).abs().max().item<double>() / boxes.abs().max().item<double>();
      const double ds =
          (all.narrow(1, 4, 6) - scores).abs().max().item<double>() / scores.abs().max().item<double>();
      qInfo("%s: max relative difference boxes %.2e, scores %.2e", branch, db, ds);
      QVERIFY2(db <= 1e-5 && ds <= 1e-5, branch);
    }
  }

  // The one-to-one branches run on detached features: their loss reaches only themselves, while the
  // one-to-many maps are what forward() returns, bit for bit.
  void oneToOneBranchesAreDetached() {
    at::manual_seed(0);
    DetectionModel m = buildModel("yolo26n.yaml", 3);
    m->train();
    const at::Tensor x = at::rand({1, 3, 64, 64});
    const HeadOutputs h = m->forwardHeads(x);
    const std::vector<at::Tensor> plain = m->forward(x);
    for (size_t i = 0; i < plain.size(); ++i) QVERIFY(plain[i].equal(h.one2many[i]));
    at::Tensor loss = at::zeros({});
    for (const auto& t : h.one2one) loss = loss + t.sum();
    loss.backward();
    for (const auto& p : m->named_parameters()) {
      const bool o2o = p.key().find(".one2one_") != std::string::npos;
      const bool touched = p.value().grad().defined() && p.value().grad().abs().sum().item<double>() > 0;
      if (o2o && p.key().find("bn.") == std::string::npos) QVERIFY2(touched, p.key().c_str());
      if (!o2o) QVERIFY2(!touched, p.key().c_str());
    }
    // Box biases start at 2.0 (8.4) in both branches; the copies start equal to the originals.
    QCOMPARE(m->detect()->boxBranch(0).out->bias[0].item<float>(), 2.0f);
    QVERIFY(m->detect()->one2oneClassBranch(2).out->weight.equal(m->detect()->classBranch(2).out->weight));
  }

  // SPPF in 8.4: cv1 without activation; YOLO26's [1024, 5, 3, True]: 3 pools and a residual (c1 == c2).
  // The 8.3 form (SiLU) is what a YAML says with `ultralytics_modules: '8.3'` or a caller asks for.
  void sppfFormsAndResidual() {
    QVERIFY(!buildModel("yolov8n.yaml", 80)->spec().sppfActivation());
    QVERIFY(buildModel("yolov8n.yaml", 80, "8.3")->spec().sppfActivation());
    const DetectionModel v83 = buildModel("yolov8n.yaml", 80, "8.3");
    QCOMPARE(buildModel(v83->yaml(), 80)->spec().modules, std::string("8.3"));  // recorded in yaml()
    QCOMPARE(ultralyticsModulesOf("ultralytics 8.3.253 DetectionModel"), std::string("8.3"));
    QCOMPARE(ultralyticsModulesOf("8.4.52"), std::string("8.4"));
    at::manual_seed(1);
    SPPF s(SPPFOptions(8, 8, 5).n(3).shortcut(true));
    s->eval();
    QVERIFY(s->residual());
    QVERIFY(!s->cv1->options.act());
    const at::Tensor x = at::randn({1, 8, 6, 6});
    // By hand: cv1 (BN, no SiLU), three chained 5x5/1 max-pools (pad 2), concat, cv2, plus x.
    std::vector<at::Tensor> y{s->cv1->bn->forward(s->cv1->conv->forward(x))};
    for (int i = 0; i < 3; ++i) y.push_back(at::max_pool2d(y.back(), {5, 5}, {1, 1}, {2, 2}));
    const at::Tensor want = x + s->cv2->forward(at::cat(y, 1));
    QVERIFY(s->forward(x).allclose(want, 1e-6, 1e-6));
  }

  // NMS-free post-processing, worked by hand: 3 anchors, 2 classes, max_det 2. Best class scores per anchor
  // are 0.9 (a0), 0.2 (a1), 0.8 (a2): stage 1 keeps a0, a2; among their four (anchor, class) scores
  // {a0: 0.9, 0.7; a2: 0.1, 0.8} stage 2 keeps (a0, c0, 0.9) and (a2, c1, 0.8). a0 appears once although its
  // class 1 (0.7) beats a1's best: at most max_det pairs. conf 0.85 then drops the second row.
  void end2endTopKByHand() {
    // [1, 4 + 2, 3]: cx, cy, w, h then scores.
    const at::Tensor pred = at::tensor({10.f, 20.f, 30.f,  // cx
                                        10.f, 20.f, 30.f,  // cy
                                        4.f, 4.f, 2.f,     // w
                                        2.f, 2.f, 6.f,     // h
                                        0.9f, 0.2f, 0.1f,  // class 0
                                        0.7f, 0.1f, 0.8f})
                                .view({1, 6, 3});
    const at::Tensor d = ywb::eval::end2endDetections(pred, 0.001, 2)[0];
    QCOMPARE(d.size(0), int64_t(2));
    const at::Tensor want =
        at::tensor({8.f, 9.f, 12.f, 11.f, 0.9f, 0.f, 29.f, 27.f, 31.f, 33.f, 0.8f, 1.f}).view({2, 6});
    QVERIFY2(d.allclose(want), "rows (x1, y1, x2, y2, score, class)");
    // The rows' anchors (what BoT-SORT's ReID reads features at): a0 and a2; with conf 0.85 a0 alone.
    std::vector<at::Tensor> anchors;
    QCOMPARE(ywb::eval::end2endDetections(pred, 0.85, 2, &anchors)[0].size(0), int64_t(1));
    QVERIFY(at::equal(anchors.at(0), at::tensor({int64_t(0)})));
    ywb::eval::end2endDetections(pred, 0.001, 2, &anchors);
    QVERIFY(at::equal(anchors.at(0), at::tensor({int64_t(0), int64_t(2)})));
  }

  // 8.4 checkpoints are rebuilt as their pickles say; 8.3 ones keep SiLU in SPPF.
  void checkpointsFollowTheirModules() {
    const at::Device cpu(at::kCPU);
    const ywb::LoadedModel y26 = ywb::loadModelWeights(kUltra84 + "/yolo26n-shapes.pt", cpu);
    QVERIFY(y26.model->end2end());
    QCOMPARE(y26.model->regMax(), int64_t(1));
    QVERIFY(!y26.model->spec().sppfActivation());
    const ywb::LoadedModel v84 = ywb::loadModelWeights(kUltra84 + "/yolov8n-shapes.pt", cpu);
    QCOMPARE(v84.model->spec().modules, std::string("8.4"));
    QVERIFY(!v84.model->end2end());
    const ywb::LoadedModel v83 = ywb::loadModelWeights(kUltra + "/yolov8n-shapes.pt", cpu);
    QCOMPARE(v83.model->spec().modules, std::string("8.3"));
    // weights info names the 8.4 features it found.
    const ywb::WeightsInfo info = ywb::inspectWeights(kUltra84 + "/yolo26n-shapes.pt");
    const std::string f = info.metadata.at(ywb::kPtFeaturesKey);
    for (const char* want : {"SPPF cv1 without activation", "end-to-end head",
                             "no DFL (reg_max 1) in model.23", "C3k2 with attention in model.22"})
      QVERIFY2(f.find(want) != std::string::npos, f.c_str());
  }

  // Exported safetensors weights record the head: end2end and reg_max, beside the YAML that also says so.
  void exportedWeightsRecordTheHead() {
    DetectionModel y26 = buildModel("yolo26n.yaml", 2), v8 = buildModel("yolov8n.yaml", 2);
    const auto m26 = ywb::export_detail::weightsMetadata({}, y26, {"a", "b"}, 128, "x.pt");
    QCOMPARE(m26.at(ywb::weights_key::kEnd2End), std::string("true"));
    QCOMPARE(m26.at(ywb::weights_key::kRegMax), std::string("1"));
    const auto m8 = ywb::export_detail::weightsMetadata({}, v8, {"a", "b"}, 128, "x.pt");
    QCOMPARE(m8.at(ywb::weights_key::kEnd2End), std::string("false"));
    QCOMPARE(m8.at(ywb::weights_key::kRegMax), std::string("16"));
  }

  // The head's maps (ywb::extractHeadScoreMaps) of Ultralytics 8.4's own checkpoints on a real shapes val
  // image (128x112): letterboxed at the trained size 128 to 128x128 (8 grey rows above and below), so the
  // levels are 128/8, 128/16, 128/32 = 16, 8, 4 cells a side. Independently, `ywb predict` (its own
  // letterbox, decode and post-processing: top-k for the one-to-one branch, NMS for the one-to-many one)
  // finds the image's top detection: its score is the maps' maximum, and the anchor of the maximum (cell
  // centre (x + 0.5) * stride, minus the 8-row offset) lies inside its box.
  void headScoreMapsMatchTheTopDetection() {
    const std::string image = kUltra + "/shapes/images/val/val_00000.jpg";
    int ow = 0, oh = 0;
    cv::Mat rgb;
    cv::cvtColor(ywb::loadImage(image, 0, /*fast=*/false, &ow, &oh), rgb, cv::COLOR_BGR2RGB);
    QCOMPARE(ow, 128);
    QCOMPARE(oh, 112);
    const ywb::RgbView view{rgb.cols, rgb.rows, rgb.data, int64_t(rgb.step)};
    const struct {
      std::string weights;
      ywb::HeadBranch branch;
    } cases[] = {{kUltra84 + "/yolo26n-shapes.pt", ywb::HeadBranch::OneToOne},
                 {kUltra84 + "/yolo26n-shapes.pt", ywb::HeadBranch::OneToMany},
                 {kUltra84 + "/yolov8n-shapes.pt", ywb::HeadBranch::OneToMany}};
    for (const auto& c : cases) {
      const bool o2o = c.branch == ywb::HeadBranch::OneToOne;
      const bool yolo26 = c.weights.find("yolo26") != std::string::npos;
      const std::string what = c.weights + (o2o ? " one-to-one" : " one-to-many");
      ywb::ModelHandle h = ywb::loadModelHandle(c.weights);
      QCOMPARE(h.endToEnd(), yolo26);
      QCOMPARE(h.headLayer(), yolo26 ? 23 : 22);  // yolo26.yaml: layers 0..23; yolov8.yaml: 0..22
      const std::vector<ywb::FeatureMap> maps = ywb::extractHeadScoreMaps(h, view, c.branch, 128);
      QCOMPARE(maps.size(), size_t(3));
      float best = -1;
      int best_level = -1, best_x = -1, best_y = -1;
      for (size_t l = 0; l < maps.size(); ++l) {
        const ywb::FeatureMap& m = maps[l];
        QCOMPARE(m.stride, 8 << l);
        QCOMPARE(m.height, 128 / m.stride);
        QCOMPARE(m.width, 128 / m.stride);
        QCOMPARE(m.channels, 1);
        QCOMPARE(m.layer, h.headLayer());
        QCOMPARE(m.module, std::string("Detect"));
        for (int y = 0; y < m.height; ++y) {
          for (int x = 0; x < m.width; ++x) {
            const float v = m.data[size_t(y * m.width + x)];
            QVERIFY(v >= 0 && v <= 1);  // a sigmoid
            if (v <= best) continue;
            best = v;
            best_level = int(l);
            best_x = x;
            best_y = y;
          }
        }
      }
      ywb::PredictOptions po;
      po.weights = c.weights;
      po.source = image;
      po.imgsz = 128;
      po.conf = 0.001;
      po.save_txt = false;
      po.end2end = o2o;
      const ywb::PredictReport rep = ywb::predictImages(po);
      QCOMPARE(rep.images.size(), size_t(1));
      const auto& boxes = rep.images[0].boxes;
      QVERIFY2(!boxes.empty(), what.c_str());
      const ywb::DetBox top =
          *std::max_element(boxes.begin(), boxes.end(),
                            [](const ywb::DetBox& a, const ywb::DetBox& b) { return a.score < b.score; });
      const int stride = maps[size_t(best_level)].stride;
      const double cx = (best_x + 0.5) * stride, cy = (best_y + 0.5) * stride - 8;
      qInfo(
          "%s: best score %.5f at P%d (%d, %d), anchor (%.0f, %.0f); top detection %.5f class %d box (%.1f, "
          "%.1f, %.1f, %.1f)",
          what.c_str(), double(best), best_level + 3, best_x, best_y, cx, cy, double(top.score), top.cls,
          double(top.x1), double(top.y1), double(top.x2), double(top.y2));
      QVERIFY2(std::abs(top.score - best) <= 1e-4, what.c_str());
      QVERIFY2(cx >= top.x1 && cx <= top.x2 && cy >= top.y1 && cy <= top.y2, what.c_str());
    }
    // Another size gives other shapes: 192 -> 192x168 padded to 192x192 (a multiple of 32): 24, 12, 6 cells.
    ywb::ModelHandle y26 = ywb::loadModelHandle(kUltra84 + "/yolo26n-shapes.pt");
    const auto at192 = ywb::extractHeadScoreMaps(y26, view, ywb::HeadBranch::OneToOne, 192);
    QCOMPARE(at192[0].height, 24);
    QCOMPARE(at192[1].height, 12);
    QCOMPARE(at192[2].width, 6);
    // A model without a one-to-one branch says so.
    ywb::ModelHandle v8 = ywb::loadModelHandle(kUltra84 + "/yolov8n-shapes.pt");
    const QString e = qErrorOf([&] { ywb::extractHeadScoreMaps(v8, view, ywb::HeadBranch::OneToOne, 128); });
    QVERIFY2(e.contains("no one-to-one branch"), qPrintable(e));
  }

  // What cannot be built is named: a module the checkpoint holds, a YAML argument, a module name.
  void unbuildableThingsAreNamed() {
    ywb::PtArchitecture a = ywb::describePtModules({{"", "ultralytics.nn.tasks.DetectionModel"},
                                                    {"model", "torch.nn.modules.container.Sequential"},
                                                    {"model.6", "ultralytics.nn.modules.block.A2C2f"},
                                                    {"model.9", "ultralytics.nn.modules.block.SPPF"},
                                                    {"model.9.cv1", "ultralytics.nn.modules.conv.Conv"},
                                                    {"model.9.cv1.act", "torch.nn.modules.linear.Identity"}});
    QCOMPARE(a.modules_form, std::string("8.4"));
    QCOMPARE(a.no_activation, std::vector<std::string>{"model.9.cv1"});
    QCOMPARE(a.classes.at("ultralytics.nn.modules.block.A2C2f"), std::string("model.6"));
    const std::string yaml =
        "nc: 2\nbackbone:\n  - [-1, 1, Conv, [16, 3, 2]]\n  - [-1, 1, SPPF, [16, 5, 3, True, 7]]\n"
        "head:\n  - [[1], 1, Detect, [nc]]\n";
    const QString e1 = qErrorOf([&] { buildModel(yaml, 0); });
    QVERIFY2(e1.contains("layer 1 (SPPF)") && e1.contains("argument 4 '7'"), qPrintable(e1));
    const QString e2 = qErrorOf([&] {
      buildModel("nc: 2\nbackbone:\n  - [-1, 1, A2C2f, [16]]\nhead:\n  - [[0], 1, Detect, [nc]]\n", 0);
    });
    QVERIFY2(e2.contains("layer 0 (A2C2f)") && e2.contains("unknown module"), qPrintable(e2));
    // A top-level value of the wrong kind names its key, its text and its line (lines counted by hand in
    // each YAML below; yaml-cpp alone said "bad conversion").
    const std::string rows = "backbone:\n  - [-1, 1, Conv, [16, 3, 2]]\nhead:\n  - [[0], 1, Detect, [nc]]\n";
    const QString e3 = qErrorOf([&] { buildModel("nc: 2\nend2end: sometimes\n" + rows, 0); });
    QVERIFY2(e3.contains("end2end: 'sometimes' is not true/false (line 2)"), qPrintable(e3));
    const QString e4 = qErrorOf([&] { buildModel("nc: 2\nreg_max: [1]\n" + rows, 0); });
    QVERIFY2(e4.contains("reg_max: expected a whole number, found a list (line 2)"), qPrintable(e4));
    const QString e5 = qErrorOf([&] { buildModel("nc: eighty\n" + rows, 0); });
    QVERIFY2(e5.contains("nc: 'eighty' is not a whole number (line 1)"), qPrintable(e5));
    const QString e6 = qErrorOf([&] { buildModel("nc: 2\nscales:\n  n: [0.5, quarter, 1024]\n" + rows, 0); });
    QVERIFY2(e6.contains("scales: n width: 'quarter' is not a number (line 3)"), qPrintable(e6));
  }
};

QTEST_GUILESS_MAIN(TestModelYolo26)
#include "test_model_yolo26.moc"
