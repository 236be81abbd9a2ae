// Tests of the YOLOv8 model family: sizes against Ultralytics' published numbers, shapes, keys, init,
// fusion, decoding and feature-map taps.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "model/box_decode.h"
#include "model/detection_model.h"
#include "ywb/error.h"
#include "ywb/feature_maps.h"
#include "ywb/model_info.h"

using namespace ywb::model;

namespace {

int64_t countParams(const DetectionModel& m, bool trainable_only = false) {
  int64_t n = 0;
  for (const auto& p : m->parameters())
    if (!trainable_only || p.requires_grad()) n += p.numel();
  return n;
}

}  // namespace

class TestModel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::manual_seed(0); }

  void parameterCountsMatchUltralytics() {
    // Ultralytics' model summaries (80 classes, unfused), GUIDE section 7 / the issue.
    const std::vector<std::pair<std::string, int64_t>> expected = {{"yolov8n.yaml", 3157200},
                                                                   {"yolov8s.yaml", 11166560},
                                                                   {"yolov8m.yaml", 25902640},
                                                                   {"yolov8l.yaml", 43691520},
                                                                   {"yolov8x.yaml", 68229648}};
    for (const auto& [name, params] : expected) {
      const DetectionModel m = buildModel(name, 80);
      QCOMPARE(countParams(m), params);
      // Only the DFL's 16 fixed projection weights have no gradient (Ultralytics: "3157184 gradients" for n).
      QCOMPARE(countParams(m, true), params - 16);
      QCOMPARE(m->scale(), name.substr(6, 1));
    }
  }

  void stateDictKeysAreUltralytics() {
    const DetectionModel m = buildModel("yolov8n.yaml", 80);
    std::set<std::string> keys;
    for (const auto& kv : m->named_parameters()) keys.insert(kv.key());
    for (const auto& kv : m->named_buffers()) keys.insert(kv.key());
    for (const char* k :
         {"model.0.conv.weight", "model.0.bn.weight", "model.0.bn.bias", "model.0.bn.running_mean",
          "model.0.bn.running_var", "model.0.bn.num_batches_tracked", "model.2.cv1.conv.weight",
          "model.2.m.0.cv1.conv.weight", "model.2.m.0.cv2.bn.running_var", "model.9.cv2.conv.weight",
          "model.21.m.0.cv2.conv.weight", "model.22.cv2.0.0.conv.weight", "model.22.cv2.0.2.weight",
          "model.22.cv2.0.2.bias", "model.22.cv3.2.1.bn.bias", "model.22.cv3.2.2.bias",
          "model.22.dfl.conv.weight"})
      QVERIFY2(keys.count(k), k);
    // Upsample (10, 13) and Concat (11, 14, 17, 20) have no state.
    for (const auto& k : keys)
      QVERIFY2(k.rfind("model.10.", 0) != 0 && k.rfind("model.11.", 0) != 0, k.c_str());
  }

  void initialisationLikeUltralytics() {
    DetectionModel m = buildModel("yolov8n.yaml", 80);
    auto params = m->named_parameters();
    // Box branch bias 2.0 (Ultralytics 8.4; 1.0 in 8.3's form, see the 8.4 loss fixture's initial weights);
    // class bias log(5 / nc / (640 / s)^2): s=8 -> log(5/80/6400) = -11.5366.
    QVERIFY(params["model.22.cv2.0.2.bias"].eq(2.0).all().item<bool>());
    QVERIFY(buildModel("yolov8n.yaml", 80, "8.3")
                ->named_parameters()["model.22.cv2.0.2.bias"]
                .eq(1.0)
                .all()
                .item<bool>());
    const double p3 = std::log(5.0 / 80 / 6400), p5 = std::log(5.0 / 80 / 400);
    QVERIFY(std::abs(params["model.22.cv3.0.2.bias"][0].item<double>() - p3) < 1e-5);
    QVERIFY(std::abs(params["model.22.cv3.2.2.bias"][79].item<double>() - p5) < 1e-5);
    QVERIFY(std::abs(p3 - -11.5366) < 1e-3);
    // DFL projection 0..15, frozen.
    const at::Tensor dfl = params["model.22.dfl.conv.weight"].flatten();
    QVERIFY(dfl.equal(at::arange(16, dfl.options())));
    // BatchNorm eps 1e-3 and momentum 0.03 (GUIDE 7).
    auto conv = std::dynamic_pointer_cast<ConvImpl>(m->layer(0));
    QVERIFY(conv);
    QCOMPARE(conv->bn->options.eps(), 1e-3);
    QCOMPARE(conv->bn->options.momentum().value(), 0.03);
    QCOMPARE(m->strides(), (std::vector<int64_t>{8, 16, 32}));
  }

  void outputShapesForSeveralSizes() {
    DetectionModel m = buildModel("yolov8n.yaml", 3);
    m->eval();
    torch::NoGradGuard ng;
    // (H, W): square, non-square both ways; channels 4*16 + 3 = 67.
    for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{64, 64}, {256, 384}, {352, 160}}) {
      const auto out = m->forward(at::rand({2, 3, h, w}));
      QCOMPARE(out.size(), size_t(3));
      const int64_t s[] = {8, 16, 32};
      int64_t anchors = 0;
      for (int i = 0; i < 3; ++i) {
        QCOMPARE(out[size_t(i)].sizes().vec(), (std::vector<int64_t>{2, 67, h / s[i], w / s[i]}));
        anchors += (h / s[i]) * (w / s[i]);
      }
      const at::Tensor y = m->predict(at::rand({2, 3, h, w}));
      QCOMPARE(y.sizes().vec(), (std::vector<int64_t>{2, 4 + 3, anchors}));
    }
    QVERIFY_EXCEPTION_THROWN(m->forward(at::rand({1, 3, 100, 64})), ywb::Error);
  }

  void fusedEqualsUnfused() {
    DetectionModel m = buildModel("yolov8n.yaml", 80);
    // Non-trivial BatchNorm statistics: a few train-mode passes update running mean/var.
    m->train();
    {
      torch::NoGradGuard ng;
      for (int i = 0; i < 3; ++i) m->forward(at::rand({2, 3, 128, 128}));
    }
    m->eval();
    torch::NoGradGuard ng;
    const at::Tensor x = at::rand({1, 3, 160, 224});
    const at::Tensor before = m->predict(x);
    m->fuse();
    m->fuse();  // idempotent
    QVERIFY(m->fused());
    const at::Tensor after = m->predict(x);
    const double err = (after - before).abs().max().item<double>();
    QVERIFY2(err < 1e-3 * std::max(1.0, before.abs().max().item<double>()), std::to_string(err).c_str());
    // Fused count from Ultralytics' fused summary of yolov8n: 3,151,904 parameters (BN weight+bias replaced
    // by a conv bias: one parameter less per output channel of every Conv).
    QCOMPARE(countParams(m), int64_t(3151904));
    std::set<std::string> keys;
    for (const auto& kv : m->named_parameters()) keys.insert(kv.key());
    QVERIFY(keys.count("model.0.conv.bias") && !keys.count("model.0.bn.weight"));
  }

  void cloneIsDeepAndEqual() {
    DetectionModel m = buildModel("yolov8n.yaml", 4);
    m->train();
    {
      torch::NoGradGuard ng;
      m->forward(at::rand({1, 3, 64, 64}));  // moves the BatchNorm statistics away from their defaults
    }
    m->eval();
    DetectionModel c = cloneModel(m);
    QVERIFY(!c->is_training());
    torch::NoGradGuard ng;
    const at::Tensor x = at::rand({1, 3, 96, 64});
    QVERIFY(c->predict(x).equal(m->predict(x)));  // same parameters and running statistics
    m->named_parameters()["model.0.conv.weight"].add_(1.0);
    QVERIFY(!c->predict(x).equal(m->predict(x)));  // deep: the copy did not see the change
    QVERIFY(!c->named_parameters()["model.22.dfl.conv.weight"].requires_grad());
  }

  void gflopsMatchUltralytics() {
    // GUIDE 7: n 8.7, s 28.6 GFLOPs at 640, fused, multiply-add = 2 FLOPs (Ultralytics prints one decimal).
    DetectionModel n = buildModel("yolov8n.yaml", 80);
    DetectionModel s = buildModel("yolov8s.yaml", 80);
    QVERIFY2(std::abs(n->flops(640, 640, false) / 1e9 - 8.7) < 0.05,
             std::to_string(n->flops(640, 640, false)).c_str());
    QVERIFY2(std::abs(s->flops(640, 640, false) / 1e9 - 28.6) < 0.05,
             std::to_string(s->flops(640, 640, false)).c_str());
    // Unfused: Ultralytics' summary of yolov8n says 8.9 GFLOPs (its profiler also counts each BatchNorm).
    QVERIFY2(std::abs(n->flops(640, 640, true) / 1e9 - 8.9) < 0.05,
             std::to_string(n->flops(640, 640, true)).c_str());
    // A training forward (what `bench model` rates) runs the same convolutions: 8.7 again, and 100x less at
    // 64 px (every map divides by the largest stride, so FLOPs follow the area exactly).
    QCOMPARE(n->trainingFlops(640, 640), n->flops(640, 640, false));
    QCOMPARE(n->trainingFlops(640, 640), 100 * n->trainingFlops(64, 64));
    // YOLO26's training forward also runs the one-to-one copy of the head, not a second trunk: more than the
    // one-to-many count, less than twice it.
    DetectionModel y26 = buildModel("yolo26n.yaml", 80);
    const double o2m = y26->flops(640, 640, false), train = y26->trainingFlops(640, 640);
    QVERIFY2(train > o2m && train < 2 * o2m, (std::to_string(train) + " vs " + std::to_string(o2m)).c_str());
  }

  void anchorsAndDecodeArithmetic() {
    // A 2x3 map at stride 8 and a 1x1 map at stride 16: anchors are (x + 0.5, y + 0.5) row-major.
    const std::vector<at::Tensor> feats = {at::zeros({1, 64 + 2, 2, 3}), at::zeros({1, 64 + 2, 1, 1})};
    auto [pts, st] = makeAnchors(feats, {8, 16}, 0.5);
    QCOMPARE(pts.sizes().vec(), (std::vector<int64_t>{7, 2}));
    QCOMPARE(pts[2][0].item<float>(), 2.5f);  // third anchor: x = 2 + 0.5, y = 0.5
    QCOMPARE(pts[3][1].item<float>(), 1.5f);  // fourth anchor: first of row 1
    QCOMPARE(st[6][0].item<float>(), 16.0f);
    // All-zero logits: each side's distribution is uniform over 0..15, expectation 7.5 bins, so every box is
    // 15 bins wide, centred on its anchor: at stride 8, w = h = 120 px, centre = anchor * 8. Scores
    // sigmoid(0).
    const at::Tensor y = decodeOutputs(feats, {8, 16}, 2);
    QCOMPARE(y.sizes().vec(), (std::vector<int64_t>{1, 6, 7}));
    QVERIFY(std::abs(y[0][0][2].item<float>() - 2.5f * 8) < 1e-4);
    QVERIFY(std::abs(y[0][2][2].item<float>() - 120.f) < 1e-3);
    QVERIFY(std::abs(y[0][3][6].item<float>() - 240.f) < 1e-3);
    QVERIFY(std::abs(y[0][5][0].item<float>() - 0.5f) < 1e-6);
    const Detections d = splitDecoded(y);
    // xyxy of anchor 0 (centre 4, 4; 120 x 120): (-56, -56, 64, 64).
    QVERIFY(d.boxes[0][0].allclose(at::tensor({-56.f, -56.f, 64.f, 64.f}), 1e-4, 1e-3));
    QCOMPARE(d.scores.sizes().vec(), (std::vector<int64_t>{1, 7, 2}));
  }

  void tapsReturnLayerOutputs() {
    DetectionModel m = buildModel("yolov8n.yaml", 80);
    m->eval();
    const at::Tensor x = at::rand({1, 3, 320, 320}, at::requires_grad());
    const auto t = m->taps(x, {9, 0, 4});
    // n scale: layer 0 Conv 16 ch /2; layer 4 C2f 64 ch /8; layer 9 SPPF 256 ch /32 (width 0.25 of 64, 256,
    // 1024).
    QCOMPARE(t[0].sizes().vec(), (std::vector<int64_t>{1, 256, 10, 10}));
    QCOMPARE(t[1].sizes().vec(), (std::vector<int64_t>{1, 16, 160, 160}));
    QCOMPARE(t[2].sizes().vec(), (std::vector<int64_t>{1, 64, 40, 40}));
    QVERIFY(!t[0].requires_grad());
    QVERIFY_EXCEPTION_THROWN(m->taps(x, {22}), ywb::Error);
  }

  void specResolvesLikeUltralytics() {
    QCOMPARE(buildModel("yolov8s", 0)->scale(), std::string("s"));
    QCOMPARE(buildModel("yolov8s.yaml", 0)->nc(), 80);
    // yaml() records the scale, so a checkpoint's stored YAML text rebuilds the same scale (not the first
    // one).
    QCOMPARE(buildModel(buildModel("yolov8s.yaml", 0)->yaml(), 0)->scale(), std::string("s"));
    // A YAML on disk whose stem names scale m.
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/yolov8m-custom.yaml";
    std::ofstream(path) << buildModel("yolov8n.yaml", 0)->yaml();
    DetectionModel m = buildModel(path, 5);
    QCOMPARE(m->scale(), std::string("m"));
    QCOMPARE(m->nc(), 5);
    QCOMPARE(m->spec().source, path);
    try {
      buildModel("yolov9z.yaml", 0);
      QFAIL("expected an error");
    } catch (const ywb::Error& e) {
      QVERIFY2(std::string(e.what()).find("yolov8n.yaml") != std::string::npos, e.what());
    }
    // A tiny custom YAML as text: Conv 3->8 /2, Conv 8->16 /2 x3 levels, Detect on the last three.
    const std::string tiny =
        "nc: 2\nbackbone:\n  - [-1, 1, Conv, [8, 3, 2]]\n  - [-1, 1, Conv, [16, 3, 2]]\n  - [-1, 1, Conv, "
        "[16, 3, 2]]\n"
        "  - [-1, 1, Conv, [16, 3, 2]]\n  - [-1, 1, Conv, [16, 3, 2]]\nhead:\n  - [[2, 3, 4], 1, Detect, "
        "[nc]]\n";
    DetectionModel t = buildModel(tiny, 0);
    QCOMPARE(t->strides(), (std::vector<int64_t>{8, 16, 32}));
    QCOMPARE(t->forward(at::rand({1, 3, 64, 64}))[2].size(1), int64_t(64 + 2));
  }

  void publicInfoAndFeatureMaps() {
    const ywb::ModelInfo info = ywb::modelInfo("yolov8n.yaml", 80, 640);
    QCOMPARE(info.parameters, int64_t(3157200));
    QCOMPARE(info.layers.size(), size_t(23));
    QCOMPARE(info.layers[2].args, std::string("[32, 32, 1, True]"));  // C2f 128*0.25, depth round(3*0.33) = 1
    QCOMPARE(info.layers[22].args, std::string("[80, [64, 128, 256]]"));
    int64_t sum = 0;
    for (const auto& r : info.layers) sum += r.params;
    QCOMPARE(sum, info.parameters);
    QVERIFY(std::abs(info.gflops_fused - 8.7) < 0.05);
    // Output shapes: SPPF of YOLOv8n has 1024 x 0.25 = 256 channels at stride 32, so 20x20 at 640; the first
    // Conv 64 x 0.25 = 16 channels at stride 2.
    QCOMPARE(info.layers[9].module, std::string("SPPF"));
    QCOMPARE(ywb::layerOutputShape(info.layers[9], 640), std::string("256x20x20"));
    QCOMPARE(ywb::layerOutputShape(info.layers[0], 320), std::string("16x160x160"));

    ywb::ModelHandle h = ywb::ModelHandle::create("yolov8n.yaml", 3);
    QCOMPARE(h.tappableLayers(), 22);
    QCOMPARE(h.layerTable().size(), info.layers.size());
    QCOMPARE(h.layerTable()[9].channels, int64_t(256));
    std::vector<uint8_t> rgb(100 * 60 * 3, 200);
    const ywb::RgbView img{100, 60, rgb.data(), 0};
    // Letterbox to 128: 100x60 -> 128x77, padded to 128x96 (multiple of 32); layer 0 halves it: 16 x 48 x 64.
    const auto maps = ywb::extractFeatureMaps(h, img, {0, 2}, 128);
    QCOMPARE(maps.size(), size_t(2));
    QCOMPARE(maps[0].channels, 16);
    QCOMPARE(maps[0].height, 48);
    QCOMPARE(maps[0].width, 64);
    QCOMPARE(maps[0].data.size(), size_t(16 * 48 * 64));
    QCOMPARE(maps[1].module, std::string("C2f"));
    QVERIFY_EXCEPTION_THROWN(ywb::extractFeatureMaps(h, img, {40}, 128), ywb::Error);
  }
};

QTEST_GUILESS_MAIN(TestModel)
#include "test_model.moc"
