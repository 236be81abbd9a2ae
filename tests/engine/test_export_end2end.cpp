// The end-to-end (YOLO26) ONNX graph, issue 32 part 6: output [N, min(max_det, anchors), 6] (x1, y1, x2, y2,
// score, class), run in ONNX Runtime (OpenCV 4.6 has no TopK) and compared with LibTorch's NMS-free
// inference by the export itself, on Ultralytics' trained yolo26n and real shapes images; the one-to-many
// graph (end2end=false) stays verified in OpenCV DNN. Needs installer/install-onnxruntime.sh: without it the
// ONNX Runtime tests fail, saying what is missing.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "export/end2end_verifier.h"
#include "export/onnx_runtime_node.h"
#include "export/onnx_verifier.h"
#include "support/export_checkpoints.h"
#include "train/model_loader.h"
#include "ywb/export.h"

namespace {

const std::string kYolo26Pt = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";
const std::string kShapesVal = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";

// Fails the test (not a skip) when ONNX Runtime is missing: CI installs it, so its absence is a defect.
#define REQUIRE_ONNX_RUNTIME()                                                                      \
  do {                                                                                              \
    if (!ywb::onnxExportAvailable()) QSKIP("ONNX is not in this build");                            \
    const auto rt = ywb::onnx_export::findOnnxRuntimeNode();                                        \
    QVERIFY2(rt.missing.empty(), ("ONNX Runtime for the end-to-end graph: " + rt.missing).c_str()); \
  } while (0)

ywb::ExportReport exportYolo26(const std::string& weights, const QString& dir, const std::string& name,
                               int imgsz, int batch, bool dynamic, bool end2end, int images) {
  ywb::ExportOptions o;
  o.weights = weights;
  o.formats = {"onnx"};
  o.out_dir = dir.toStdString();
  o.name = name;
  o.imgsz = imgsz;
  o.batch = batch;
  o.dynamic = dynamic;
  o.end2end = end2end;
  o.verify_source = kShapesVal;
  o.verify_images = images;
  return ywb::exportWeights(o);
}

void requirePassed(const ywb::ExportReport& r) {
  const auto& v = r.files.at(0).verification;
  QVERIFY2(v.ran && v.passed, (v.note + "\n" + ywb::formatExportReport(r)).c_str());
}

}  // namespace

class TestExportEnd2End : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void compareDetectionsToleratesOnlyTies() {
    // Four detections sorted by score. Rows 1 and 2 have scores 0.5 and 0.50004 apart by less than the
    // tolerance 1e-4, so a runtime may list them the other way round: "reordered", not a mismatch. Row 3 has
    // the last score (the max_det cut): a near-tie there may keep another (anchor, class) pair.
    const at::Tensor ref = at::tensor({10.f, 10.f, 20.f, 20.f, 0.9f,     1.f,  //
                                       30.f, 30.f, 40.f, 40.f, 0.50004f, 2.f,  //
                                       50.f, 50.f, 60.f, 60.f, 0.5f,     3.f,  //
                                       70.f, 70.f, 80.f, 80.f, 0.1f,     0.f})
                               .view({1, 4, 6});
    at::Tensor got = ref.clone();
    got[0][1].copy_(ref[0][2]);
    got[0][2].copy_(ref[0][1]);
    got[0][3].copy_(at::tensor({0.f, 0.f, 1.f, 1.f, 0.10005f, 5.f}));  // another pair at the cut
    auto m = ywb::onnx_export::compareDetections(got, ref, 1e-4);
    QCOMPARE(m.rows, int64_t(4));
    QCOMPARE(m.reordered, int64_t(2));
    QCOMPARE(m.boundary, int64_t(1));
    QCOMPARE(m.mismatched, int64_t(0));
    // Row by row: 0.50004 vs 0.5 in rows 1 and 2, 0.10005 vs 0.1 in row 3 (float rounding aside).
    QVERIFY(std::abs(m.max_score_diff - 5e-5) < 1e-6);
    // A class change above the cut is a mismatch; so is a box moved by 0.01 px (box scale 80: tolerance
    // 1e-4 x 80 = 0.008 px).
    at::Tensor wrong_class = ref.clone();
    wrong_class[0][0][5] = 4.f;
    QCOMPARE(ywb::onnx_export::compareDetections(wrong_class, ref, 1e-4).mismatched, int64_t(1));
    at::Tensor moved = ref.clone();
    moved[0][0][2] += 0.01f;
    m = ywb::onnx_export::compareDetections(moved, ref, 1e-4);
    QCOMPARE(m.mismatched, int64_t(1));
    QVERIFY(m.first_mismatch.find("image 0 row 0") != std::string::npos);
  }

  void yolo26nShapesEndToEndRunsInOnnxRuntime() {
    // Ultralytics' trained yolo26n (8.4.52) at its 128 px: 16^2 + 8^2 + 4^2 = 336 anchors, so stage 1 keeps
    // 300 of them and the output is [2, 300, 6]; 4 real shapes images at batch 2.
    REQUIRE_ONNX_RUNTIME();
    QTemporaryDir dir;
    const auto r = exportYolo26(kYolo26Pt, dir.path(), "e2e", 128, 2, false, true, 4);
    qInfo("%s", ywb::formatExportReport(r).c_str());
    const auto& f = r.files.at(0);
    QCOMPARE(f.outputs.at(0).shape, (std::vector<int64_t>{2, 300, 6}));
    requirePassed(r);
    const auto& v = f.verification;
    QCOMPARE(v.images, 4);
    QVERIFY2(v.runtime.rfind("ONNX Runtime ", 0) == 0, v.runtime.c_str());
    QVERIFY(v.max_abs_diff_boxes <= 1e-4 * std::max(1.0, v.box_scale));
    QVERIFY(v.max_abs_diff_scores <= 1e-4);
    // Debian 12's OpenCV 4.6 cannot load the graph; the report says why (its first unsupported node).
    if (ywb::onnx_export::openCvDnnVersion() == "4.6.0")
      QVERIFY2(v.opencv_error.find("TopK") != std::string::npos, v.opencv_error.c_str());

    // Independently of the export's own check: the file run again on one image, against LibTorch's
    // detections of the model as `ywb val` loads it: the ten best rows, and the best one's class.
    auto lm = ywb::loadModelWeights(kYolo26Pt, at::Device(at::kCPU));
    lm.model->eval();
    const auto x = ywb::onnx_export::verificationInputs(kShapesVal, 1, 128, 128, nullptr);
    const auto run = ywb::onnx_export::runWithOnnxRuntime(ywb::onnx_export::findOnnxRuntimeNode(), f.path,
                                                          {at::cat({x[0], x[0]})});
    const at::Tensor ref = ywb::onnx_export::end2endReference(lm.model, x[0], 300);
    const at::Tensor got = run.outputs.at(0).narrow(0, 1, 1);          // image 0 again, batch row 1
    QCOMPARE(got[0][0][5].item<float>(), ref[0][0][5].item<float>());  // the best detection's class
    QVERIFY((got.narrow(2, 0, 5) - ref.narrow(2, 0, 5)).narrow(1, 0, 10).abs().max().item<double>() < 1e-3);
    QVERIFY(run.ort_version.size() > 0 && run.node_version.rfind("v", 0) == 0);
  }

  void fewerAnchorsThanMaxDetAndDynamicShapes() {
    // Small inputs have fewer anchors than max_det: at 64 px 8^2 + 4^2 + 2^2 = 84, so k = 84 (as
    // end2endDetections clamps). The dynamic graph computes k = min(300, A) itself: the export runs it at
    // 2x64x64 (84 rows), 2x160x160 (20^2 + 10^2 + 5^2 = 525 anchors: 300 rows) and 1x64x160 (8x20 + 4x10 +
    // 2x5 = 210 rows).
    REQUIRE_ONNX_RUNTIME();
    QTemporaryDir dir;
    const auto st = exportYolo26(kYolo26Pt, dir.path(), "small", 64, 1, false, true, 2);
    QCOMPARE(st.files.at(0).outputs.at(0).shape, (std::vector<int64_t>{1, 84, 6}));
    requirePassed(st);
    const auto dyn = exportYolo26(kYolo26Pt, dir.path(), "dynamic", 64, 1, true, true, 2);
    qInfo("%s", ywb::formatExportReport(dyn).c_str());
    requirePassed(dyn);
    QCOMPARE(dyn.files.at(0).outputs.at(0).dim_names, (std::vector<std::string>{"batch", "detections", ""}));
    // 2 images at each shape; batch 1 for the rectangle: 4 runs.
    QCOMPARE(dyn.files.at(0).verification.input_shapes,
             (std::vector<std::vector<int64_t>>{
                 {2, 3, 64, 64}, {2, 3, 160, 160}, {1, 3, 64, 160}, {1, 3, 64, 160}}));
  }

  void oneToManyGraphStaysInOpenCv() {
    // end2end=false: the one-to-many head, [N, 4+nc, anchors] = [1, 10, 336], for NMS, run in OpenCV DNN.
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable()) QSKIP("needs ONNX and OpenCV DNN");
    QTemporaryDir dir;
    const auto r = exportYolo26(kYolo26Pt, dir.path(), "o2m", 128, 1, false, false, 2);
    QCOMPARE(r.files.at(0).outputs.at(0).shape, (std::vector<int64_t>{1, 10, 336}));
    requirePassed(r);
    QVERIFY2(r.files.at(0).verification.runtime.rfind("OpenCV DNN", 0) == 0,
             r.files.at(0).verification.runtime.c_str());
  }

  void yolo26nAt640() {
    // 640 px: 80^2 + 40^2 + 20^2 = 8400 anchors, [1, 300, 6]. The trained yolo26n on a shapes image (scores
    // spread as in real use), then a yolo26n built from YAML with 80 classes (seeded random weights; class
    // indices up to 79 through the graph's Div/Mod). The random model scores almost every anchor alike
    // (0.958, one class), so its rows mostly count as reordered: it checks boxes and classes, not the order.
    REQUIRE_ONNX_RUNTIME();
    QTemporaryDir dir;
    const auto trained = exportYolo26(kYolo26Pt, dir.path(), "trained640", 640, 1, false, true, 1);
    qInfo("%s", ywb::formatExportReport(trained).c_str());
    QCOMPARE(trained.files.at(0).outputs.at(0).shape, (std::vector<int64_t>{1, 300, 6}));
    requirePassed(trained);
    const std::string ckpt = ywb::test::writeCheckpoint(dir.path(), "yolo26n.yaml", 80, 26);
    ywb::ExportOptions o;
    o.weights = ckpt;
    o.formats = {"onnx"};
    o.out_dir = dir.path().toStdString();
    o.imgsz = 640;
    o.verify_source = ywb::test::kCoco;
    o.verify_images = 1;
    const auto r = ywb::exportWeights(o);
    qInfo("%s", ywb::formatExportReport(r).c_str());
    QCOMPARE(r.files.at(0).outputs.at(0).shape, (std::vector<int64_t>{1, 300, 6}));
    requirePassed(r);
  }
};

QTEST_GUILESS_MAIN(TestExportEnd2End)
#include "test_export_end2end.moc"
