// Tests of state-dict naming/order and loading: exact (strict) loading through a safetensors file,
// transfer by name and shape for a different class count, dtype conversion, and per-name errors.
// The modules are small stand-ins built here with YOLO-style names (Conv = conv + bn, a 1x1 head).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "io/pt_weights.h"
#include "io/safetensors.h"
#include "io/state_dict.h"
#include "ywb/error.h"

namespace {

struct ConvBlockImpl : torch::nn::Module {
  ConvBlockImpl(int in, int out)
      : conv(register_module("conv",
                             torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false)))),
        bn(register_module(
            "bn", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).eps(1e-3).momentum(0.03)))) {}
  at::Tensor forward(const at::Tensor& x) { return torch::silu(bn(conv(x))); }
  torch::nn::Conv2d conv;
  torch::nn::BatchNorm2d bn;
};
TORCH_MODULE(ConvBlock);

struct TinyDetectorImpl : torch::nn::Module {
  explicit TinyDetectorImpl(int nc)
      : model(register_module(
            "model", torch::nn::Sequential(ConvBlock(3, 8), ConvBlock(8, 16),
                                           torch::nn::Conv2d(torch::nn::Conv2dOptions(16, nc + 4, 1))))) {}
  at::Tensor forward(const at::Tensor& x) { return model->forward(x); }
  torch::nn::Sequential model;
};
TORCH_MODULE(TinyDetector);

// Registers a child first, then its own parameter and buffer: PyTorch still lists own entries first.
struct MixedOrderImpl : torch::nn::Module {
  MixedOrderImpl() {
    register_module("sub", torch::nn::Linear(2, 2));
    register_parameter("scale", torch::ones({1}));
    register_buffer("count", torch::zeros({1}, torch::kLong));
  }
};
TORCH_MODULE(MixedOrder);

std::vector<std::string> names(const ywb::NamedTensors& sd) {
  std::vector<std::string> out;
  for (const auto& nt : sd) out.push_back(nt.first);
  return out;
}

// Random parameters, then one training-mode forward so the BN running statistics (buffers) move away
// from their initial values too (random buffers could give a negative variance).
void perturb(TinyDetector& m, int64_t seed) {
  torch::manual_seed(uint64_t(seed));
  torch::NoGradGuard g;
  for (auto& p : m->parameters()) p.copy_(torch::randn(p.sizes()));
  m->train();
  m->forward(torch::randn({2, 3, 8, 8}));
}

bool allEqual(const ywb::NamedTensors& a, const ywb::NamedTensors& b) {
  if (names(a) != names(b)) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i].second, b[i].second)) return false;
  }
  return true;
}

ywb::NamedTensors cloned(const ywb::NamedTensors& sd) {
  ywb::NamedTensors out;
  for (const auto& [n, t] : sd) out.emplace_back(n, t.clone());
  return out;
}

// A Python with PyTorch, or empty (the converter check is then skipped: CI does not need Python).
QString pythonWithTorch() {
  for (const QString& py : {QString("python3"), QString("/usr/bin/python3")}) {
    QProcess p;
    p.start(py, {"-c", "import torch"});
    if (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return py;
  }
  return {};
}

// The Python twin of TinyDetector (same layers, same registration order), saved the way Ultralytics saves
// checkpoints (a pickled model under 'ema', half precision, train_args), plus every value as JSON.
const char* kMakeCheckpoint = R"PY(
import json, sys, torch, torch.nn as nn
sys.path.insert(0, sys.argv[1])
from tinyultra import DetectionModel
torch.manual_seed(0)
m = DetectionModel(3)
for p in m.parameters(): nn.init.normal_(p)
m.train(); m(torch.randn(2, 3, 8, 8)); m.eval()
m = m.half()
torch.save({"ema": m, "model": None, "train_args": {"imgsz": 320}}, sys.argv[1] + "/ckpt.pt")
ref = {k: v.double().flatten().tolist() for k, v in m.float().state_dict().items()}
json.dump(ref, open(sys.argv[1] + "/ref.json", "w"))
)PY";

const char* kTinyUltra = R"PY(
import torch.nn as nn
class Conv(nn.Module):
    def __init__(s, c1, c2):
        super().__init__()
        s.conv = nn.Conv2d(c1, c2, 3, 1, 1, bias=False)
        s.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
    def forward(s, x): return nn.functional.silu(s.bn(s.conv(x)))
class DetectionModel(nn.Module):
    def __init__(s, nc):
        super().__init__()
        s.model = nn.Sequential(Conv(3, 8), Conv(8, 16), nn.Conv2d(16, nc + 4, 1))
        s.names = {i: "class%d" % i for i in range(nc)}
        s.yaml = {"nc": nc}
    def forward(s, x): return s.model(x)
)PY";

}  // namespace

class TestIoStateDict : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void namesFollowPyTorchOrder() {
    TinyDetector m(80);
    // PyTorch's state_dict rule: a module's own parameters, its own buffers, then its children in
    // registration order. BatchNorm2d: weight, bias | running_mean, running_var, num_batches_tracked.
    const std::vector<std::string> expected = {"model.0.conv.weight",    "model.0.bn.weight",
                                               "model.0.bn.bias",        "model.0.bn.running_mean",
                                               "model.0.bn.running_var", "model.0.bn.num_batches_tracked",
                                               "model.1.conv.weight",    "model.1.bn.weight",
                                               "model.1.bn.bias",        "model.1.bn.running_mean",
                                               "model.1.bn.running_var", "model.1.bn.num_batches_tracked",
                                               "model.2.weight",         "model.2.bias"};
    QCOMPARE(names(ywb::namedStateDict(*m)), expected);
    MixedOrder mixed;
    QCOMPARE(names(ywb::namedStateDict(*mixed)),
             (std::vector<std::string>{"scale", "count", "sub.weight", "sub.bias"}));
    // The tensors alias the module: writing through them changes the module.
    ywb::namedStateDict(*mixed)[0].second.data().fill_(3.0);
    QCOMPARE(mixed->named_parameters()["scale"].item<float>(), 3.0f);
  }

  void strictLoadThroughAFileIsExact() {
    TinyDetector a(80), b(80);
    perturb(a, 1);
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/w.safetensors").toStdString();
    ywb::writeSafetensors(path, ywb::namedStateDict(*a), {{"nc", "80"}});
    const ywb::SafetensorsFile f = ywb::readSafetensors(path);
    QVERIFY(!allEqual(ywb::namedStateDict(*a), ywb::namedStateDict(*b)));
    const ywb::StateDictReport r = ywb::loadStateDict(*b, f.tensors, /*strict=*/true);
    QCOMPARE(r.transferred, 14);  // every entry listed in namesFollowPyTorchOrder
    QCOMPARE(r.total, 14);
    QCOMPARE(r.summary(), std::string("transferred 14/14 tensors"));
    QVERIFY(allEqual(ywb::namedStateDict(*a), ywb::namedStateDict(*b)));
    a->eval();
    b->eval();
    const at::Tensor x = torch::randn({1, 3, 16, 16});
    const at::Tensor ya = a->forward(x), yb = b->forward(x);
    QVERIFY2(torch::equal(ya, yb), std::to_string((ya - yb).abs().max().item<double>())
                                       .c_str());  // same weights + same BN stats = same output
  }

  void strictMismatchListsEveryTensorAndLoadsNothing() {
    TinyDetector coco(80), mine(3);
    perturb(coco, 2);
    const ywb::NamedTensors before = cloned(ywb::namedStateDict(*mine));
    try {
      ywb::loadStateDict(*mine, ywb::namedStateDict(*coco), true);
      QFAIL("no error for 80-class weights in a 3-class model");
    } catch (const ywb::Error& e) {
      const std::string msg = e.what();
      // Head: 4 + nc output channels, 84 for COCO, 7 for 3 classes.
      QVERIFY2(msg.find("model.2.weight: weights [84, 16, 1, 1] Float vs model [7, 16, 1, 1] Float") !=
                   std::string::npos,
               msg.c_str());
      QVERIFY2(msg.find("model.2.bias: weights [84] Float vs model [7] Float") != std::string::npos,
               msg.c_str());
      QVERIFY2(msg.find("transferred 0/14 tensors, 2 skipped") != std::string::npos, msg.c_str());
    }
    QVERIFY(allEqual(ywb::namedStateDict(*mine), before));  // strict failure copies nothing

    // Missing and unexpected names are listed too.
    ywb::NamedTensors sd = ywb::namedStateDict(*coco);
    sd.erase(sd.begin() + 1);  // model.0.bn.weight
    sd.emplace_back("model.9.extra", torch::ones({1}));
    TinyDetector same(80);
    try {
      ywb::loadStateDict(*same, sd, true);
      QFAIL("no error");
    } catch (const ywb::Error& e) {
      const std::string msg = e.what();
      QVERIFY2(msg.find("missing from the weights (1):\n    model.0.bn.weight") != std::string::npos,
               msg.c_str());
      QVERIFY2(msg.find("not in the model (1):\n    model.9.extra") != std::string::npos, msg.c_str());
    }
  }

  void transferCopiesMatchingTensorsOnly() {
    TinyDetector coco(80), mine(3);
    perturb(coco, 3);
    perturb(mine, 4);
    const ywb::NamedTensors before = cloned(ywb::namedStateDict(*mine));
    const ywb::StateDictReport r = ywb::loadStateDict(*mine, ywb::namedStateDict(*coco), /*strict=*/false);
    // 14 entries, the head's weight and bias differ in shape (84 vs 7 channels): 12 transferred.
    QCOMPARE(r.transferred, 12);
    QCOMPARE(r.total, 14);
    QCOMPARE(r.mismatched.size(), size_t(2));
    QVERIFY(r.missing.empty() && r.unexpected.empty());
    QCOMPARE(r.summary(), std::string("transferred 12/14 tensors, 2 skipped for shape/dtype"));
    const ywb::NamedTensors src = ywb::namedStateDict(*coco), dst = ywb::namedStateDict(*mine);
    for (size_t i = 0; i < 12; ++i)
      QVERIFY2(torch::equal(src[i].second, dst[i].second), dst[i].first.c_str());
    QVERIFY(torch::equal(dst[12].second, before[12].second));  // head left as it was
    QVERIFY(torch::equal(dst[13].second, before[13].second));
  }

  void dtypesAreConvertedButKindsMustMatch() {
    TinyDetector a(2), b(2);
    perturb(a, 5);
    ywb::NamedTensors half;
    for (const auto& [n, t] : ywb::namedStateDict(*a))
      half.emplace_back(n, t.is_floating_point() ? t.to(torch::kHalf) : t);
    const ywb::StateDictReport r = ywb::loadStateDict(*b, half, true);
    QCOMPARE(r.transferred, 14);
    const ywb::NamedTensors got = ywb::namedStateDict(*b);
    for (size_t i = 0; i < got.size(); ++i) {
      QCOMPARE(got[i].second.scalar_type(),
               ywb::namedStateDict(*a)[i].second.scalar_type());  // model keeps its dtype
      QVERIFY(torch::equal(got[i].second,
                           half[i].second.to(got[i].second.scalar_type())));  // value = fp16-rounded
    }
    // A float where the model keeps an integer counter is a mismatch, not a silent conversion.
    ywb::NamedTensors wrong = ywb::namedStateDict(*a);
    wrong[5].second = torch::zeros({}, torch::kFloat);  // model.0.bn.num_batches_tracked is Long
    try {
      ywb::loadStateDict(*b, wrong, true);
      QFAIL("no error");
    } catch (const ywb::Error& e) {
      QVERIFY2(std::string(e.what()).find(
                   "model.0.bn.num_batches_tracked: weights [] Float vs model [] Long") != std::string::npos,
               e.what());
    }
    QCOMPARE(ywb::loadStateDict(*b, wrong, false).transferred, 13);
  }

  void pytorchCheckpointReadsNatively() {
    // A checkpoint written by PyTorch itself (torch.save of a pickled model, as Ultralytics saves) read by
    // the native .pt reader -> strict load into the C++ twin; every value must equal PyTorch's (fp16 values
    // widened to F32 exactly).
    const QString py = pythonWithTorch();
    if (py.isEmpty()) QSKIP("no Python with PyTorch here (optional; apt-get install python3-torch)");
    QTemporaryDir dir;
    ywb::writeFileAtomic((dir.path() + "/tinyultra.py").toStdString(), kTinyUltra);
    QProcess make;
    make.start(py, {"-c", kMakeCheckpoint, dir.path()});
    QVERIFY(make.waitForFinished(120000));
    QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());

    const ywb::SafetensorsFile f = ywb::readPtWeights((dir.path() + "/ckpt.pt").toStdString());
    QCOMPARE(f.metadata.at("format"), std::string("ultralytics-pt"));
    QCOMPARE(f.metadata.at("nc"), std::string("3"));
    QCOMPARE(f.metadata.at("imgsz"), std::string("320"));
    QCOMPARE(nlohmann::json::parse(f.metadata.at("names")), nlohmann::json({"class0", "class1", "class2"}));
    TinyDetector m(3);
    QCOMPARE(names(f.tensors), names(ywb::namedStateDict(*m)));  // same keys, same order as LibTorch
    QCOMPARE(ywb::loadStateDict(*m, f.tensors, true).summary(), std::string("transferred 14/14 tensors"));
    const nlohmann::json ref = nlohmann::json::parse(ywb::readFile((dir.path() + "/ref.json").toStdString()));
    for (const auto& [name, t] : ywb::namedStateDict(*m)) {
      const std::vector<double> want = ref.at(name).get<std::vector<double>>();
      const at::Tensor got = t.to(torch::kDouble).flatten().contiguous();
      QCOMPARE(size_t(got.numel()), want.size());
      for (size_t i = 0; i < want.size(); ++i) QCOMPARE(got.data_ptr<double>()[i], want[i]);
    }
  }

  void repeatedNamesAreAnError() {
    TinyDetector m(2);
    ywb::NamedTensors sd = ywb::namedStateDict(*m);
    sd.push_back(sd.front());
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::loadStateDict(*m, sd, false));
  }
};

QTEST_GUILESS_MAIN(TestIoStateDict)
#include "test_io_state_dict.moc"
