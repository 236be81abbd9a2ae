// `ywb export format=torchscript` and `ywb val`/`predict weights=best.torchscript`. References independent of
// the TorchScript path:
// - LibTorch's own modules on the same checkpoint (Ultralytics' trained yolov8n and yolo26n on shapes,
//   ../shared/fixtures; test_val_parity holds their validation to Ultralytics' numbers): the traced model
//   differs from them only by BatchNorm folded into the convolutions, so scores agree to ~1e-5 and the COCO
//   numbers to 1e-3 (the bound test_onnx_val uses for the same folding);
// - the module read back by torch::jit::load alone (no code of ours), as a LibTorch program would;
// - the same model exported to ONNX and run by OpenCV DNN (predictions box for box).
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "cli_runner.h"
#include "export/torchscript_metadata.h"
#include "support/error_of.h"
#include "support/exported_val.h"
#include "support/predictions_compare.h"
#include "support/shapes_copy.h"
#include "ywb/export.h"
#include "ywb/inference.h"

namespace {

const std::string kV8 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
const std::string kY26 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";
const std::string kImages = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";

ywb::ExportReport exportTo(const std::string& weights, const QTemporaryDir& dir, const std::string& name,
                           int batch, bool verify, bool end2end = true,
                           const std::string& format = "torchscript") {
  ywb::ExportOptions o;
  o.weights = weights;
  o.formats = {format};
  o.out_dir = dir.path().toStdString();
  o.name = name;
  o.imgsz = 128;
  o.batch = batch;
  o.end2end = end2end;
  o.verify = verify;
  o.verify_source = kImages;
  return ywb::exportWeights(o);
}

ywb::PredictReport predict(const std::string& weights, const std::string& source, double conf = 0.25) {
  ywb::PredictOptions o;
  o.weights = weights;
  o.conf = conf;
  o.source = source;
  return ywb::predictImages(o);
}

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

class TestExportTorchScript : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The file holds a module any LibTorch program runs: torch::jit::load alone, at the traced shape, gives
  // what our modules give, and its config.txt holds Ultralytics' metadata keys.
  void exportsAVerifiedModuleLibTorchLoads() {
    QTemporaryDir dir;
    const ywb::ExportReport r = exportTo(kV8, dir, "v8", 2, /*verify=*/true);
    const ywb::ExportedFile& f = r.files.at(0);
    const std::string text = ywb::formatExportReport(r);
    QVERIFY2(f.verification.ran && f.verification.passed, text.c_str());
    QCOMPARE(f.format, std::string("torchscript"));
    QCOMPARE(f.verification.images, 4);  // verify_images=4 shapes images in batches of 2
    QVERIFY(f.verification.runtime.find("TorchScript interpreter") != std::string::npos);
    // 128 px: 16^2 + 8^2 + 4^2 = 336 anchors at strides 8, 16, 32; 6 classes.
    QCOMPARE(f.outputs.at(0).shape, (std::vector<int64_t>{2, 10, 336}));
    QVERIFY2(text.find("traced by LibTorch") != std::string::npos, text.c_str());

    torch::jit::ExtraFilesMap extra{{"config.txt", ""}};
    torch::jit::Module m = torch::jit::load(f.path, at::Device(at::kCPU), extra);
    const auto meta = ywb::torchscript::parseConfigJson(extra["config.txt"], "config.txt");
    QCOMPARE(meta.names.size(), size_t(6));
    QCOMPARE(meta.names, r.names);
    QCOMPARE(meta.height, 128);
    QCOMPARE(meta.batch, 2);
    QCOMPARE(meta.stride, 32);
    QVERIFY(!meta.end2end);
    const at::Tensor y = m.forward({at::rand({2, 3, 128, 128})}).toTensor();
    QCOMPARE(y.sizes().vec(), (std::vector<int64_t>{2, 10, 336}));
    // Sigmoid scores in [0, 1], boxes within the picture's scale.
    QVERIFY(y.narrow(1, 4, 6).min().item<double>() >= 0 && y.narrow(1, 4, 6).max().item<double>() <= 1);

    QVERIFY(qErrorOf([&] {
              ywb::ExportOptions o;
              o.weights = kV8;
              o.formats = {"torchscript"};
              o.out_dir = dir.path().toStdString();
              o.half = true;
              ywb::exportWeights(o);
            }).contains("half=true: TorchScript is exported in fp32"));
  }

  // Validated as Ultralytics validates a fixed-size export: square batches of its own batch (3: 21 batches
  // and a last one of 1 filled up); the reference is LibTorch with rect=false, the same squares.
  void validatesLikeItsWeights() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string ts = exportTo(kV8, dir, "v8", 3, false).files.at(0).path;
    const ywb::ValReport got = val(data, ts, true), ref = val(data, kV8, /*rect=*/false);
    QVERIFY2(got.runtime.find("TorchScript interpreter") != std::string::npos, got.runtime.c_str());
    QVERIFY(!got.rect && !ref.rect);
    QCOMPARE(got.batch, 3);
    QCOMPARE(got.imgsz, 128);
    QVERIFY(!got.has_losses);
    compareMetrics(got, ref);
    QVERIFY(qErrorOf([&] {
              val(data, ts, true, 160);
            }).contains("takes 128 x 128 images only (a fixed-size TorchScript model), not imgsz=160"));
  }

  // YOLO26: the end-to-end module gives [N, 300, 6] rows, NMS-free like its weights; end2end=false gives the
  // one-to-many head for NMS.
  void yolo26BothHeads() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const ywb::ExportReport e2e = exportTo(kY26, dir, "y26", 1, true);
    QVERIFY2(e2e.allVerified(), ywb::formatExportReport(e2e).c_str());
    QCOMPARE(e2e.files[0].outputs.at(0).shape, (std::vector<int64_t>{1, 300, 6}));
    QVERIFY(!e2e.files[0].verification.rows.empty());
    const ywb::ValReport got = val(data, e2e.files[0].path, true), ref = val(data, kY26, false);
    QVERIFY(got.nms_free && ref.nms_free && got.end2end_model);
    compareMetrics(got, ref);
    ywb::ValOptions o;
    o.data = data;
    o.weights = e2e.files[0].path;
    o.end2end = false;
    QVERIFY(qErrorOf([&] { ywb::validateWeights(o); }).contains("holds an end-to-end (NMS-free) model only"));

    const ywb::ExportReport o2m = exportTo(kY26, dir, "y26-o2m", 1, true, /*end2end=*/false);
    QVERIFY2(o2m.allVerified(), ywb::formatExportReport(o2m).c_str());
    QCOMPARE(o2m.files[0].outputs.at(0).shape, (std::vector<int64_t>{1, 10, 336}));
  }

  // `ywb predict weights=best.torchscript`: a fixed-size model is letterboxed to its full square, as the
  // fixed-size ONNX graph of the same weights is; OpenCV DNN running that graph finds the same boxes.
  void predictsAsTheOnnxGraphOfItsWeights() {
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable())
      QSKIP("needs ONNX and OpenCV DNN in the build");
    QTemporaryDir dir;
    const std::string ts = exportTo(kV8, dir, "v8", 1, false).files.at(0).path;
    const std::string onnx = exportTo(kV8, dir, "v8", 1, false, true, "onnx").files.at(0).path;
    const ywb::PredictReport got = predict(ts, kImages), ref = predict(onnx, kImages);
    QCOMPARE(got.names, ref.names);
    QVERIFY(sameBoxes(got, ref) > 64);  // about two objects per image: the comparison covers many boxes
  }

  // What a user is told about files that are not a detection model of ours or Ultralytics'.
  void badFilesAreNamed() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string ts = exportTo(kV8, dir, "v8", 1, false).files.at(0).path;
    const std::string cut = dir.filePath("cut.torchscript").toStdString();
    const std::string bytes = readBytes(ts);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    const QString cut_error = qErrorOf([&] { val(data, cut, true); });
    QVERIFY2(cut_error.startsWith(QString::fromStdString(cut + ": ")), qPrintable(cut_error));
    // One byte changed inside the weights: LibTorch's own reader would load it (it checks no CRC-32).
    std::string flipped = bytes;
    flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x10);
    const std::string damaged = dir.filePath("damaged.torchscript").toStdString();
    std::ofstream(damaged, std::ios::binary) << flipped;
    QVERIFY(qErrorOf([&] { val(data, damaged, true); }).contains("is damaged (CRC-32 mismatch)"));
    std::ofstream(dir.filePath("text.torchscript").toStdString()) << "not a model";
    QVERIFY(qErrorOf([&] {
              val(data, dir.filePath("text.torchscript").toStdString(), true);
            }).contains("text.torchscript: not a TorchScript archive (a zip file"));
    QVERIFY(qErrorOf([&] {
              val(data, dir.filePath("none.torchscript").toStdString(), true);
            }).contains("no such TorchScript file"));

    // A module without metadata, one of another task, and one whose output contradicts its metadata.
    torch::jit::Module m("__torch__.Plain");
    m.define("def forward(self, x):\n  return x[:, :, :, 0]\n");  // [N, 3, H]: "4 + nc" = 3 rows
    const std::string plain = dir.filePath("plain.torchscript").toStdString();
    m.save(plain);
    QVERIFY(qErrorOf([&] { val(data, plain, true); }).contains("plain.torchscript: no metadata"));
    const std::string seg = dir.filePath("seg.torchscript").toStdString();
    m.save(seg, {{"config.txt", R"({"task": "segment", "imgsz": [128, 128], "names": {"0": "a"}})"}});
    QVERIFY(qErrorOf([&] { val(data, seg, true); }).contains("seg.torchscript is a 'segment' model"));
    const std::string half = dir.filePath("half.torchscript").toStdString();
    m.save(half, {{"config.txt", R"({"imgsz": [128, 128], "names": {"0": "a"}, "args": {"half": true}})"}});
    QVERIFY(
        qErrorOf([&] { val(data, half, true); }).contains("half.torchscript was exported with half=true"));
    const std::string six = dir.filePath("six.torchscript").toStdString();
    m.save(six, {{"config.txt", R"({"task": "detect", "batch": 1, "imgsz": [128, 128], "stride": 32,
                  "names": {"0": "a", "1": "b", "2": "c", "3": "d", "4": "e", "5": "f"}})"}});
    QVERIFY(qErrorOf([&] { val(data, six, true); })
                .contains("the model's output is [1, 3, 128] for input [1, 3, 128, 128]; its metadata (6 "
                          "classes) says [1, 10, anchors]"));

    // Ultralytics' metadata as json.dumps writes it; malformed metadata names the key.
    using ywb::torchscript::parseConfigJson;
    const auto u = parseConfigJson(
        R"({"description": "Ultralytics YOLOv8n model", "stride": 32, "task": "detect", "batch": 1,
            "imgsz": [640, 480], "names": {"1": "bicycle", "0": "person"}, "args": {"batch": 1}, "channels": 3})",
        "c");
    QCOMPARE(u.names, (std::vector<std::string>{"person", "bicycle"}));
    QCOMPARE(u.height, 640);
    QCOMPARE(u.width, 480);
    QVERIFY(!u.nms && !u.half && !u.end2end);
    const auto n = parseConfigJson(
        R"({"imgsz": [640, 640], "names": {"0": "a"}, "args": {"nms": true, "half": true}})", "c");
    QVERIFY(n.nms && n.half);
    QVERIFY(qErrorOf([&] {
              parseConfigJson(R"({"imgsz": 640, "names": {"0": "a", "2": "b"}})", "c");
            }).contains("c: 'names' key \"2\" is not one of the class indices 0..1"));
    QVERIFY(qErrorOf([&] { parseConfigJson(R"({"names": {"0": "a"}})", "c"); }).contains("c: no 'imgsz'"));
    QVERIFY(qErrorOf([&] { parseConfigJson("{\"names\": ", "c"); }).contains("c: not JSON"));
  }

  // Ultralytics' `export nms=true` puts NMS inside the model: [N, max_det, 6] rows, said by args.nms. Such a
  // module (here one that finds one box of class 1 at a fixed place, score 0.9) is read as rows, not NMS'd.
  void ultralyticsNmsExportIsReadAsRows() {
    QTemporaryDir dir;
    torch::jit::Module m("__torch__.Rows");
    m.define(
        "def forward(self, x):\n"
        "  r = torch.zeros([x.size(0), 300, 6])\n"
        "  r[:, 0, 2] = 40.0\n"
        "  r[:, 0, 3] = 30.0\n"
        "  r[:, 0, 4] = 0.9\n"
        "  r[:, 0, 5] = 1.0\n"
        "  return r\n");
    const std::string ts = dir.filePath("nms.torchscript").toStdString();
    m.save(ts, {{"config.txt",
                 R"({"task": "detect", "batch": 1, "imgsz": [128, 128], "names": {"0": "a", "1": "b"},
                     "args": {"nms": true, "half": false}})"}});
    ywb::PredictOptions o;
    o.weights = ts;
    o.source = kImages + "/val_00000.jpg";
    const ywb::PredictReport r = ywb::predictImages(o);
    QVERIFY(r.nms_free);
    QCOMPARE(r.images.at(0).boxes.size(), size_t(1));
    QCOMPARE(r.images[0].boxes[0].cls, 1);
    QCOMPARE(r.images[0].boxes[0].score, 0.9f);
  }

  // The command line, as a user runs it: export, then val says what ran.
  void commandLine() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const CliResult e = ywbRun({"export", QString::fromStdString("weights=" + kV8), "format=torchscript",
                                "imgsz=128", QString::fromStdString("out_dir=" + dir.path().toStdString()),
                                QString::fromStdString("source=" + kImages)});
    QVERIFY2(e.code == 0, (e.out + e.err).constData());
    QVERIFY2(e.out.contains("torchscript: ") && e.out.contains("verification: PASSED"), e.out.constData());
    const std::string ts = dir.filePath("yolov8n-shapes.torchscript").toStdString();
    QVERIFY(QFileInfo::exists(QString::fromStdString(ts + ".report.txt")));
    const CliResult r = ywbRun({"val", QString::fromStdString("data=" + data),
                                QString::fromStdString("weights=" + ts), "workers=1", "plots=false"});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("LibTorch ") && r.out.contains("TorchScript interpreter") &&
                 r.out.contains(", imgsz 128, batch 1, square batches\n"),
             r.out.constData());
  }
};

QTEST_GUILESS_MAIN(TestExportTorchScript)
#include "test_export_torchscript.moc"
