// Tests of the YOLO11 family: each new module (sizes computed by hand from the published definitions,
// forward against an independent formulation), the five scales against Ultralytics' published summaries,
// state-dict keys and shapes against Ultralytics' own YOLO11n weights (../shared fixture), the YAML rules
// (c3k forced for m/l/x, depth-wise class branch), the layer table and feature-map taps.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "io/safetensors.h"
#include "io/state_dict.h"
#include "model/c2psa.h"
#include "model/c3k2.h"
#include "model/detection_model.h"
#include "model/dwconv.h"
#include "ywb/error.h"
#include "ywb/feature_maps.h"
#include "ywb/model_info.h"

using namespace ywb::model;

namespace {

int64_t countParams(const torch::nn::Module& m, bool trainable_only = false) {
  int64_t n = 0;
  for (const auto& p : m.parameters())
    if (!trainable_only || p.requires_grad()) n += p.numel();
  return n;
}

// Parameters of a Conv (no bias) + BatchNorm: c2 * c1/g * k * k weights + 2 * c2 (BN weight and bias).
int64_t convParams(int64_t c1, int64_t c2, int64_t k, int64_t g = 1) {
  return c2 * (c1 / g) * k * k + 2 * c2;
}

// BatchNorm statistics away from 0/1 so fused/unfused and train/eval differ visibly.
void randomizeBatchNorm(torch::nn::Module& m) {
  torch::NoGradGuard ng;
  for (auto& kv : m.named_buffers()) {
    if (kv.key().find("running_mean") != std::string::npos) kv.value().uniform_(-0.2, 0.2);
    if (kv.key().find("running_var") != std::string::npos) kv.value().uniform_(0.5, 1.5);
  }
}

}  // namespace

class TestModelYolo11 : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::manual_seed(0); }

  void dwconvIsGroupedConv() {
    // DWConv(c1, c2) = Conv with groups gcd(c1, c2): 16 -> 16 at 3x3 has one 3x3 filter per channel.
    DWConv d(DWConvOptions(16, 16, 3));
    QCOMPARE(d->conv->options.groups(), int64_t(16));
    QCOMPARE(countParams(*d), convParams(16, 16, 3, 16));  // 16*9 + 32 = 176
    DWConv e(DWConvOptions(16, 24, 3, 2));                 // gcd(16, 24) = 8 groups
    QCOMPARE(e->conv->weight.sizes().vec(), (std::vector<int64_t>{24, 2, 3, 3}));
    QCOMPARE(e->forward(at::rand({1, 16, 10, 10})).sizes().vec(), (std::vector<int64_t>{1, 24, 5, 5}));
    // It is a Conv: everything that walks Convs (fusion, SyncBatchNorm, export) sees it.
    QVERIFY(std::dynamic_pointer_cast<ConvImpl>(d.ptr()));
  }

  void c3AndC3kSizesAndShapes() {
    // C3(32, 64, n=1): hidden 32; cv1, cv2 Conv(32,32,1); cv3 Conv(64,64,1); Bottleneck 1x1 + 3x3 at 32.
    C3 c3(C3Options(32, 64, 1));
    QCOMPARE(countParams(*c3), 2 * convParams(32, 32, 1) + convParams(64, 64, 1) + convParams(32, 32, 1) +
                                   convParams(32, 32, 3));  // 16,768
    QCOMPARE(c3->blocks[0]->cv1->options.k(), int64_t(1));
    // C3k(64, 64, n=2, k=3): hidden 32; two Bottlenecks 3x3 + 3x3 at 32 (expansion 1.0).
    C3k c3k(C3kOptions(64, 64, 2));
    QCOMPARE(countParams(*c3k),
             2 * convParams(64, 32, 1) + convParams(64, 64, 1) + 4 * convParams(32, 32, 3));
    QCOMPARE(countParams(*c3k), int64_t(45568));
    QCOMPARE(c3k->forward(at::rand({2, 64, 8, 6})).sizes().vec(), (std::vector<int64_t>{2, 64, 8, 6}));
    std::set<std::string> keys;
    for (const auto& kv : c3k->named_parameters()) keys.insert(kv.key());
    QVERIFY(keys.count("cv3.conv.weight") && keys.count("m.1.cv2.bn.bias"));
  }

  void c3k2BothForms() {
    // YOLO11n layer 2: C3k2(32, 64, n=1, c3k=False, e=0.25): hidden 16; cv1 Conv(32, 32, 1);
    // cv2 Conv(3*16, 64, 1); Bottleneck(16, 16, e=0.5): Conv(16, 8, 3) + Conv(8, 16, 3) = 6,640 (Ultralytics'
    // summary row "2 -1 1 6640 C3k2 [32, 64, 1, False, 0.25]").
    C3k2 a(C3k2Options(32, 64, 1).e(0.25));
    QCOMPARE(countParams(*a),
             convParams(32, 32, 1) + convParams(48, 64, 1) + convParams(16, 8, 3) + convParams(8, 16, 3));
    QCOMPARE(countParams(*a), int64_t(6640));
    QCOMPARE(a->bottlenecks.size(), size_t(1));
    QVERIFY(a->bottlenecks[0]->residual());  // C3k2's shortcut defaults to True
    // Layer 6: C3k2(128, 128, 1, c3k=True): hidden 64; cv1 Conv(128,128,1); cv2 Conv(192,128,1);
    // C3k(64, 64, 2) = 45,568 (above): 16,640 + 24,832 + 45,568 = 87,040.
    C3k2 b(C3k2Options(128, 128, 1).c3k(true));
    QCOMPARE(countParams(*b), int64_t(87040));
    QCOMPARE(b->c3ks.size(), size_t(1));
    const at::Tensor x = at::rand({1, 128, 6, 4});
    QCOMPARE(b->forward(x).sizes().vec(), (std::vector<int64_t>{1, 128, 6, 4}));
  }

  void attentionMatchesPerHeadReference() {
    // Attention(128, heads 2, ratio 0.5): head_dim 64, key_dim 32; qkv Conv 128 -> 128 + 2*2*32 = 256 (no
    // act), proj Conv 128 -> 128, pe depth-wise 3x3: 33,280 + 16,640 + 1,408 = 51,328.
    Attention att(AttentionOptions(128).num_heads(2).attn_ratio(0.5));
    QCOMPARE(att->headDim(), int64_t(64));
    QCOMPARE(att->keyDim(), int64_t(32));
    QCOMPARE(countParams(*att),
             convParams(128, 256, 1) + convParams(128, 128, 1) + convParams(128, 128, 3, 128));
    QCOMPARE(countParams(*att), int64_t(51328));
    randomizeBatchNorm(*att);
    att->eval();
    torch::NoGradGuard ng;
    const int64_t B = 2, C = 128, H = 3, W = 5, N = H * W;
    const at::Tensor x = at::randn({B, C, H, W});
    const at::Tensor y = att->forward(x);
    // Independent formulation: per image and head, 2-D matrices [channels, N]. Head h owns channels
    // [h*128, (h+1)*128) of qkv's output: q = first 32, k = next 32, v = last 64. Weights
    // softmax_j(q_i . k_j / sqrt(32)); out[:, i] = sum_j v[:, j] w[i, j]; then + pe(v as a map), proj.
    const at::Tensor qkv = att->qkv->forward(x);
    std::vector<at::Tensor> images;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<at::Tensor> heads, values;
      for (int64_t h = 0; h < 2; ++h) {
        const at::Tensor m = qkv[b].slice(0, h * 128, (h + 1) * 128).reshape({128, N});
        const at::Tensor q = m.slice(0, 0, 32), k = m.slice(0, 32, 64), v = m.slice(0, 64, 128);
        const at::Tensor logits = at::mm(q.t(), k) / std::sqrt(32.0);
        const at::Tensor e = (logits - std::get<0>(logits.max(1, true))).exp();
        const at::Tensor w = e / e.sum(1, true);
        heads.push_back(at::mm(v, w.t()));
        values.push_back(v);
      }
      const at::Tensor v_map = at::cat(values, 0).reshape({1, C, H, W});
      images.push_back(at::cat(heads, 0).reshape({1, C, H, W}) + att->pe->forward(v_map));
    }
    const at::Tensor ref = att->proj->forward(at::cat(images, 0));
    QVERIFY2(y.allclose(ref, 1e-4, 1e-5), std::to_string((y - ref).abs().max().item<double>()).c_str());
  }

  void psaBlockAndC2psa() {
    // PSABlock(128, heads 2): Attention 51,328 + ffn Conv(128,256,1) + Conv(256,128,1) = 117,632.
    PSABlock p(PSABlockOptions(128).num_heads(2));
    QCOMPARE(countParams(*p), int64_t(51328) + convParams(128, 256, 1) + convParams(256, 128, 1));
    // Residuals: with zero attention and ffn outputs (all BN weights and biases 0) the block is identity.
    {
      torch::NoGradGuard ng;
      for (auto& kv : p->named_parameters())
        if (kv.key().find(".bn.") != std::string::npos) kv.value().zero_();
    }
    p->eval();
    const at::Tensor x = at::randn({1, 128, 4, 4});
    QVERIFY(p->forward(x).equal(x));
    // C2PSA(256, 256, 1) of YOLO11n: hidden 128, 2 heads; cv1, cv2 Conv(256,256,1) + PSABlock = 249,728.
    C2PSA c(C2PSAOptions(256, 256, 1));
    QCOMPARE(c->blocks[0]->attn->options.num_heads(), int64_t(2));
    QCOMPARE(countParams(*c), 2 * convParams(256, 256, 1) + int64_t(117632));
    QCOMPARE(countParams(*c), int64_t(249728));
    QCOMPARE(c->forward(at::rand({1, 256, 2, 3})).sizes().vec(), (std::vector<int64_t>{1, 256, 2, 3}));
    QVERIFY_EXCEPTION_THROWN(C2PSA(C2PSAOptions(256, 128, 1)), ywb::Error);  // widths must match
    QVERIFY_EXCEPTION_THROWN(C2PSA(C2PSAOptions(64, 64, 1)), ywb::Error);    // 32 channels: no head
  }

  void fiveScalesMatchUltralytics() {
    // Ultralytics' yolo11.yaml summaries (80 classes, unfused): parameters and GFLOPs at 640; the only
    // parameters without gradient are the DFL's 16 fixed weights.
    const struct {
      const char* name;
      int64_t params;
      double gflops;
    } expected[] = {{"yolo11n.yaml", 2624080, 6.6},
                    {"yolo11s.yaml", 9458752, 21.7},
                    {"yolo11m.yaml", 20114688, 68.5},
                    {"yolo11l.yaml", 25372160, 87.6},
                    {"yolo11x.yaml", 56966176, 196.0}};
    for (const auto& e : expected) {
      const DetectionModel m = buildModel(e.name, 80);
      QCOMPARE(countParams(*m), e.params);
      QCOMPARE(countParams(*m, true), e.params - 16);
      const double g = m->flops(640, 640, true) / 1e9;
      QVERIFY2(std::abs(g - e.gflops) < 0.05, (std::string(e.name) + " " + std::to_string(g)).c_str());
    }
  }

  void keysAndShapesEqualUltralyticsWeights() {
    // Ultralytics' own YOLO11n (nc 6) state dict, as stored in the loss fixture: every key, same shapes, same
    // order, and nothing else.
    const ywb::SafetensorsFile f = ywb::readSafetensors(
        std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/loss-yolo11n-shapes-seed0.safetensors");
    std::vector<std::pair<std::string, std::vector<int64_t>>> theirs;
    for (const auto& [k, t] : f.tensors)
      if (k.rfind("model.", 0) == 0) theirs.emplace_back(k, t.sizes().vec());
    DetectionModel m = buildModel("yolo11n.yaml", 6);
    std::vector<std::pair<std::string, std::vector<int64_t>>> ours;
    for (const auto& [k, t] : ywb::namedStateDict(*m)) ours.emplace_back(k, t.sizes().vec());
    QCOMPARE(ours.size(), theirs.size());
    std::map<std::string, std::vector<int64_t>> theirs_map(theirs.begin(), theirs.end());
    for (const auto& [k, s] : ours) {
      QVERIFY2(theirs_map.count(k), k.c_str());
      QVERIFY2(theirs_map[k] == s, k.c_str());
    }
    // The depth-wise class branch (legacy=False) of the head, level 0 (64 channels in, c3 = max(64, 6)).
    QCOMPARE(theirs_map["model.23.cv3.0.0.0.conv.weight"], (std::vector<int64_t>{64, 1, 3, 3}));
    QCOMPARE(theirs_map["model.23.cv3.0.1.1.conv.weight"], (std::vector<int64_t>{64, 64, 1, 1}));
  }

  void yamlRulesAndLayerTable() {
    // Ultralytics' parse_model: C3k2 rows get c3k=True at scales m, l, x; YOLOv8 keeps its old head.
    const ywb::ModelInfo n = ywb::modelInfo("yolo11n.yaml", 80, 640);
    QCOMPARE(n.layers.size(), size_t(24));
    // The rows of Ultralytics' YOLO11n summary (args as it prints them).
    QCOMPARE(n.layers[2].args, std::string("[32, 64, 1, False, 0.25]"));
    QCOMPARE(n.layers[2].params, int64_t(6640));
    QCOMPARE(n.layers[6].args, std::string("[128, 128, 1, True]"));
    QCOMPARE(n.layers[10].module, std::string("C2PSA"));
    QCOMPARE(n.layers[10].args, std::string("[256, 256, 1]"));
    QCOMPARE(n.layers[10].params, int64_t(249728));
    QCOMPARE(n.layers[13].args, std::string("[384, 128, 1, False]"));
    QCOMPARE(n.layers[23].args, std::string("[80, [64, 128, 256]]"));
    const ywb::ModelInfo m = ywb::modelInfo("yolo11m.yaml", 80, 640);
    QCOMPARE(m.layers[2].args, std::string("[128, 256, 1, True, 0.25]"));  // forced c3k
    QCOMPARE(m.layers[13].args, std::string("[1024, 512, 1, True]"));
    DetectionModel v8 = buildModel("yolov8n.yaml", 80);
    QVERIFY(v8->detect()->options.legacy());
    QVERIFY(!buildModel("yolo11n.yaml", 80)->detect()->options.legacy());
    // The text table names the modules and the arguments.
    const std::string text = ywb::modelInfoText(n);
    QVERIFY2(
        text.find("C2PSA") != std::string::npos && text.find("2,624,080 parameters") != std::string::npos,
        text.c_str());
  }

  void userYamlFileLoads() {
    // A user's copy of Ultralytics' YOLO11 YAML (comments, quoted strings, scale picked from the file stem)
    // under a custom name builds the same model.
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/yolo11s-custom.yaml";
    {
      std::ofstream out(path);
      out << "# Ultralytics-style YOLO11\n# Parameters\nnc: 80 # number of classes\nscales:\n"
             "  n: [0.50, 0.25, 1024]\n  s: [0.50, 0.50, 1024]\n  m: [0.50, 1.00, 512]\n"
             "backbone:\n  # [from, repeats, module, args]\n"
             "  - [-1, 1, Conv, [64, 3, 2]] # 0-P1/2\n  - [-1, 1, Conv, [128, 3, 2]] # 1-P2/4\n"
             "  - [-1, 2, C3k2, [256, False, 0.25]]\n  - [-1, 1, Conv, [256, 3, 2]] # 3-P3/8\n"
             "  - [-1, 2, C3k2, [512, False, 0.25]]\n  - [-1, 1, Conv, [512, 3, 2]] # 5-P4/16\n"
             "  - [-1, 2, C3k2, [512, True]]\n  - [-1, 1, Conv, [1024, 3, 2]] # 7-P5/32\n"
             "  - [-1, 2, C3k2, [1024, True]]\n  - [-1, 1, SPPF, [1024, 5]] # 9\n"
             "  - [-1, 2, C2PSA, [1024]] # 10\n"
             "head:\n  - [-1, 1, nn.Upsample, [None, 2, \"nearest\"]]\n  - [[-1, 6], 1, Concat, [1]]\n"
             "  - [-1, 2, C3k2, [512, False]] # 13\n\n  - [-1, 1, nn.Upsample, [None, 2, \"nearest\"]]\n"
             "  - [[-1, 4], 1, Concat, [1]]\n  - [-1, 2, C3k2, [256, False]] # 16 (P3/8-small)\n\n"
             "  - [-1, 1, Conv, [256, 3, 2]]\n  - [[-1, 13], 1, Concat, [1]]\n"
             "  - [-1, 2, C3k2, [512, False]] # 19\n\n  - [-1, 1, Conv, [512, 3, 2]]\n"
             "  - [[-1, 10], 1, Concat, [1]]\n  - [-1, 2, C3k2, [1024, True]] # 22\n\n"
             "  - [[16, 19, 22], 1, Detect, [nc]] # Detect(P3, P4, P5)\n";
    }
    DetectionModel m = buildModel(path, 0);
    QCOMPARE(m->scale(), std::string("s"));
    QCOMPARE(countParams(*m), int64_t(9458752));
    // The stored YAML text (what checkpoints keep) rebuilds the same model, and names its file as
    // Ultralytics' yaml dict does, so the rebuilt model still knows its family and scale.
    QCOMPARE(m->spec().family, std::string("yolo11"));
    QVERIFY2(m->yaml().rfind("yaml_file: yolo11s-custom.yaml\n", 0) == 0, m->yaml().c_str());
    DetectionModel again = buildModel(m->yaml(), 0);
    QCOMPARE(countParams(*again), int64_t(9458752));
    QCOMPARE(again->spec().family, std::string("yolo11"));
    QCOMPARE(again->scale(), std::string("s"));
    // A built-in model's text names the built-in file; rebuilt, it is the same family (the model info and
    // the run record read it from there).
    DetectionModel builtin = buildModel("yolo11n.yaml", 6);
    QVERIFY(builtin->yaml().rfind("yaml_file: yolo11n.yaml\n", 0) == 0);
    QCOMPARE(buildModel(builtin->yaml(), 6)->spec().family, std::string("yolo11"));
    QCOMPARE(buildModel(buildModel("yolov8s.yaml", 6)->yaml(), 6)->spec().family, std::string("yolov8"));
  }

  void fusedEqualsUnfusedAndTapsReachAttention() {
    DetectionModel m = buildModel("yolo11n.yaml", 80);
    randomizeBatchNorm(*m);
    m->eval();
    torch::NoGradGuard ng;
    const at::Tensor x = at::rand({1, 3, 128, 96});
    const at::Tensor before = m->predict(x);
    // Layer 10 is C2PSA (attention): 256 channels at stride 32.
    const auto t = m->taps(x, {10, 9});
    QCOMPARE(t[0].sizes().vec(), (std::vector<int64_t>{1, 256, 4, 3}));
    m->fuse();
    const at::Tensor after = m->predict(x);
    const double err = (after - before).abs().max().item<double>();
    QVERIFY2(err < 1e-3 * std::max(1.0, before.abs().max().item<double>()), std::to_string(err).c_str());
    // Ultralytics' fused YOLO11n summary: 2,616,248 parameters (one BN weight+bias pair -> one bias per
    // output channel of every Conv/DWConv).
    QCOMPARE(countParams(*m), int64_t(2616248));
    ywb::ModelHandle h = ywb::ModelHandle::create("yolo11n.yaml", 3);
    QCOMPARE(h.tappableLayers(), 23);
    QCOMPARE(h.layerModule(10), std::string("C2PSA"));
  }
};

QTEST_GUILESS_MAIN(TestModelYolo11)
#include "test_model_yolo11.moc"
