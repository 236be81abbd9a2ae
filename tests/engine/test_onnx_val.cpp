// `ywb val weights=best.onnx`: an exported graph validated with the same loader, NMS and metrics as its
// weights. The references are independent of the ONNX path: LibTorch's validation of the same checkpoint
// (Ultralytics' trained yolov8n and yolo26n on shapes, ../shared/fixtures), which test_val_parity holds to
// Ultralytics' own numbers. The graph differs from LibTorch only by rounding (BatchNorm folded into the
// convolutions, another runtime's kernels: scores within ~1e-5), so the COCO numbers agree to 1e-3.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "cli_runner.h"
#include "export/onnx_graph.h"
#include "export/onnx_metadata.h"
#include "export/onnx_runtime_node.h"
#include "export/onnx_serializer.h"
#include "support/error_of.h"
#include "support/exported_val.h"
#include "support/predictions_compare.h"
#include "support/shapes_copy.h"
#include "ywb/export.h"
#include "ywb/inference.h"

namespace {

const std::string kV8 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
const std::string kY26 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";

std::string exportOnnx(const std::string& weights, const QTemporaryDir& dir, const std::string& name,
                       int batch, bool dynamic) {
  ywb::ExportOptions o;
  o.weights = weights;
  o.formats = {"onnx"};
  o.out_dir = dir.path().toStdString();
  o.name = name;
  o.imgsz = 128;
  o.batch = batch;
  o.dynamic = dynamic;
  o.verify = false;  // test_export verifies exports; here the validation is the check
  return ywb::exportWeights(o).files.at(0).path;
}

}  // namespace

class TestOnnxVal : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable())
      QSKIP("needs ONNX and OpenCV DNN in the build");
  }

  // Ultralytics writes names with Python's str(dict): double quotes around a name holding a single quote.
  void namesMetadataReadsBothWriters() {
    using ywb::onnx_export::parsePythonNames;
    using ywb::onnx_export::pythonNames;
    const std::vector<std::string> names{"person", "o'clock", "back\\slash", "a, b: c"};
    QCOMPARE(parsePythonNames(pythonNames(names), "m"), names);
    QCOMPARE(parsePythonNames("{1: \"o'clock\", 0: 'person'}", "m"),
             (std::vector<std::string>{"person", "o'clock"}));
    QVERIFY(qErrorOf([] {
              parsePythonNames("{0: 'a', 2: 'b'}", "best.onnx: metadata 'names'");
            }).contains("best.onnx: metadata 'names': class indices are not 0..1"));
    QVERIFY(qErrorOf([] { parsePythonNames("['a', 'b']", "m"); }).contains("m: expected '{' at character 1"));
    QCOMPARE(ywb::onnx_export::parsePythonImgsz("[640, 480]", "m"), (std::array<int, 2>{640, 480}));
  }

  // A dynamic graph validates as its weights do: rectangular batches of 32, the same images, the same
  // numbers within rounding; OpenCV DNN ran it.
  void dynamicGraphMatchesItsWeights() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string onnx = exportOnnx(kV8, dir, "v8dyn", 1, true);
    const ywb::ValReport ref = val(data, kV8), got = val(data, onnx);
    QVERIFY2(got.runtime.rfind("OpenCV DNN", 0) == 0, got.runtime.c_str());
    QVERIFY(ref.runtime.rfind("LibTorch", 0) == 0);
    QVERIFY(got.rect && ref.rect);
    QCOMPARE(got.imgsz, 128);  // the size the graph was exported at (its metadata)
    QCOMPARE(got.names, ref.names);
    QVERIFY(!got.has_losses && ref.has_losses);
    compareMetrics(got, ref);
  }

  // A fixed-size graph of batch 3 is validated as Ultralytics does: square 128 x 128 batches of its own
  // batch (64 images: 21 batches of 3 and one of 1, which the detector fills up); the reference is LibTorch
  // with rect=false, which letterboxes the same squares.
  void fixedGraphValidatesOnItsSquares() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string onnx = exportOnnx(kV8, dir, "v8fixed", 3, false);
    const ywb::ValReport got = val(data, onnx), ref = val(data, kV8, /*rect=*/false);
    QVERIFY(!got.rect && !ref.rect);
    QCOMPARE(got.batch, 3);
    compareMetrics(got, ref);
    // Rectangular batches are another input: the square one must differ from them, or this test is blind.
    QVERIFY(val(data, kV8).metrics.map != ref.metrics.map);
    QVERIFY(qErrorOf([&] {
              val(data, onnx, true, 160);
            }).contains("takes 128 x 128 images only (a fixed-size ONNX model), not imgsz=160"));
  }

  // YOLO26's end-to-end graph runs in ONNX Runtime (OpenCV 4.6 has no TopK), NMS-free like its weights.
  void endToEndGraphMatchesItsWeights() {
    const auto rt = ywb::onnx_export::findOnnxRuntimeNode();
    QVERIFY2(rt.missing.empty(), rt.missing.c_str());  // CI installs it: its absence is a defect
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string onnx = exportOnnx(kY26, dir, "y26", 1, true);
    const ywb::ValReport ref = val(data, kY26), got = val(data, onnx);
    QVERIFY2(got.runtime.rfind("ONNX Runtime 1.", 0) == 0, got.runtime.c_str());
    QVERIFY(got.nms_free && ref.nms_free && got.end2end_model);
    compareMetrics(got, ref);
    ywb::ValOptions o;
    o.data = data;
    o.weights = onnx;
    o.end2end = false;
    QVERIFY(qErrorOf([&] { ywb::validateWeights(o); }).contains("holds an end-to-end (NMS-free) model only"));
  }

  // What a user is told about files that are not a detection graph, and about a dataset of other classes.
  void badFilesAreNamed() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string onnx = exportOnnx(kV8, dir, "v8", 1, false);
    const std::string cut = dir.filePath("cut.onnx").toStdString();
    {
      std::ifstream in(onnx, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), {});
      std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    }
    QVERIFY(qErrorOf([&] { val(data, cut); }).contains(QString::fromStdString(cut + ": not an ONNX model")));
    QVERIFY(
        qErrorOf([&] { val(data, dir.filePath("none.onnx").toStdString()); }).contains("no such ONNX file"));

    // A graph that is not a detector: [1, 3, 8, 8] in and out.
    ywb::onnx_export::OnnxGraph g;
    g.inputs = {{"images", {1, 3, 8, 8}, {"", "", "", ""}}};
    g.outputs = {{"output0", {1, 3, 8, 8}, {"", "", "", ""}}};
    g.nodes.push_back({"Identity", "id", {"images"}, {"output0"}, {}});
    const std::string identity = dir.filePath("identity.onnx").toStdString();
    std::ofstream(identity, std::ios::binary) << ywb::onnx_export::serializeOnnx(g);
    QVERIFY(qErrorOf([&] {
              val(data, identity);
            }).contains("output 'output0' is float32 [1, 3, 8, 8]; a detection model gives float32"));

    // Another task's graph (Ultralytics writes its task into the metadata).
    g.metadata["task"] = "segment";
    const std::string seg = dir.filePath("seg.onnx").toStdString();
    std::ofstream(seg, std::ios::binary) << ywb::onnx_export::serializeOnnx(g);
    QVERIFY(qErrorOf([&] { val(data, seg); }).contains("seg.onnx is a 'segment' model"));

    // Six classes in the graph, three in the data.
    const std::string three = dir.filePath("three.yaml").toStdString();
    std::ofstream(three) << "path: " << std::filesystem::path(data).parent_path().string()
                         << "\ntrain: images/train\nval: images/val\nnames: [a, b, c]\n";
    QVERIFY(qErrorOf([&] { val(three, onnx); }).contains("the weights have 6 classes but"));
  }

  // `ywb predict weights=best.onnx` finds what its weights find: a dynamic graph gets the same minimal
  // letterbox, so the same boxes within rounding, on the 64 shapes val images; YOLO26's end-to-end graph
  // (ONNX Runtime, a process per image) on one image, NMS-free; classes= filters both.
  void predictionsMatchTheirWeights() {
    QTemporaryDir dir;
    const std::string onnx = exportOnnx(kV8, dir, "v8dyn", 1, true);
    const std::string images = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";
    const auto predict = [&](const std::string& weights, const std::string& source, std::vector<int> classes,
                             double conf = 0.25) {
      ywb::PredictOptions o;
      o.weights = weights;
      o.conf = conf;
      o.source = source;
      o.classes = std::move(classes);
      return ywb::predictImages(o);
    };
    const ywb::PredictReport ref = predict(kV8, images, {}), got = predict(onnx, images, {});
    QCOMPARE(got.names, ref.names);
    QVERIFY(sameBoxes(got, ref) > 64);  // about two objects per image: the comparison covers many boxes
    QVERIFY(sameBoxes(predict(onnx, images, {1}), predict(kV8, images, {1})) > 0);

    const auto rt = ywb::onnx_export::findOnnxRuntimeNode();
    QVERIFY2(rt.missing.empty(), rt.missing.c_str());
    const std::string y26 = exportOnnx(kY26, dir, "y26", 1, true);
    const std::string one = images + "/val_00000.jpg";
    // (at conf 0.05: this yolo26n, trained briefly, finds little above 0.25 in this image)
    const ywb::PredictReport e2e = predict(y26, one, {}, 0.05), e2e_ref = predict(kY26, one, {}, 0.05);
    QVERIFY(e2e.nms_free && e2e_ref.nms_free);
    QVERIFY(sameBoxes(e2e, e2e_ref) > 0);
  }

  // Ultralytics' nms=True export ends in its own NMS: rows [batch, 300, 6] (x1, y1, x2, y2, score, class)
  // under names and 'args' metadata that says 'nms': True (its export arguments, a Python dict). A graph
  // made here gives one fixed row, (10, 10, 30, 30, 0.9, class 1), for a 64 x 64 input; a 128 x 128 image is
  // letterboxed by a factor of 0.5 without padding, so the prediction is that row doubled: (20, 20, 60, 60).
  // The same metadata over a [1, 6, 300] output is refused, naming the contradiction.
  void anNmsExportIsReadAsRows() {
    QTemporaryDir dir;
    const auto rt = ywb::onnx_export::findOnnxRuntimeNode();
    QVERIFY2(rt.missing.empty(), rt.missing.c_str());
    ywb::onnx_export::OnnxGraph g;
    g.inputs = {{"images", {1, 3, 64, 64}, {"", "", "", ""}}};
    g.outputs = {{"output0", {1, 300, 6}, {"", "", "", ""}}};
    std::vector<float> rows(300 * 6, 0.f);
    std::copy_n(std::vector<float>{10, 10, 30, 30, 0.9f, 1}.begin(), 6, rows.begin());
    const std::string r = g.constant("rows", {1, 300, 6}, rows);
    g.nodes.push_back({"Identity", "out", {r}, {"output0"}, {}});
    g.metadata = {{"names", "{0: 'a', 1: 'b'}"},
                  {"task", "detect"},
                  {"imgsz", "[64, 64]"},
                  {"stride", "32"},
                  {"batch", "1"},
                  {"args", "{'batch': 1, 'half': False, 'dynamic': False, 'nms': True}"}};
    const std::string onnx = dir.filePath("nms.onnx").toStdString();
    std::ofstream(onnx, std::ios::binary) << ywb::onnx_export::serializeOnnx(g);
    const std::string image = dir.filePath("grey.png").toStdString();
    QVERIFY(cv::imwrite(image, cv::Mat(128, 128, CV_8UC3, cv::Scalar(114, 114, 114))));
    ywb::PredictOptions o;
    o.weights = onnx;
    o.source = image;
    const ywb::PredictReport got = ywb::predictImages(o);
    QVERIFY(got.nms_free);
    QCOMPARE(got.names, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(got.images.at(0).boxes.size(), size_t(1));
    const ywb::DetBox& b = got.images[0].boxes[0];
    QCOMPARE(b.cls, 1);
    QCOMPARE(b.score, 0.9f);
    QCOMPARE(std::vector<float>({b.x1, b.y1, b.x2, b.y2}), std::vector<float>({20, 20, 60, 60}));

    g.outputs = {{"output0", {1, 6, 300}, {"", "", "", ""}}};
    const std::string wrong = dir.filePath("wrong.onnx").toStdString();
    std::ofstream(wrong, std::ios::binary) << ywb::onnx_export::serializeOnnx(g);
    o.weights = wrong;
    QVERIFY(qErrorOf([&] {
              ywb::predictImages(o);
            }).contains("the metadata says nms but the output is [1, 6, 300], not [batch, detections, 6]"));
  }

  // The command line, as a user runs it: the runtime and the input it was given are said first.
  void commandLineSaysWhatRan() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const std::string onnx = exportOnnx(kV8, dir, "v8", 1, false);
    const CliResult r = ywbRun({"val", QString::fromStdString("data=" + data),
                                QString::fromStdString("weights=" + onnx), "workers=1", "plots=false"});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("OpenCV DNN 4.") && r.out.contains(", imgsz 128, batch 1, square batches\n"),
             r.out.constData());
    QVERIFY2(r.out.contains("Losses: none (an exported graph holds no loss)"), r.out.constData());
  }
};

QTEST_GUILESS_MAIN(TestOnnxVal)
#include "test_onnx_val.moc"
