// `ywb benchmark`: every export of Ultralytics' trained yolov8n and yolo26n (../shared/fixtures) validated
// on shapes. What each row must show follows from what the formats are, not from the benchmark's code:
// safetensors holds the same fp32 EMA weights, so it scores exactly as the weights; ONNX differs only by
// rounding (BatchNorm folded, another runtime), so within 1e-3; fp16 weights round each weight to 11
// significant bits, so within 5e-3 and about half the file; YOLO26's one-to-many graph scores as `ywb val
// end2end=false` of its weights; TorchScript, traced at a fixed size, runs on square batches and so scores as
// `ywb val rect=false` of its weights, within BatchNorm folding's 1e-3. A format that cannot run is a row
// saying why, and the rest go on.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>

#include "cli_runner.h"
#include "support/shapes_copy.h"
#include "ywb/export.h"
#include "ywb/format_benchmark.h"
#include "ywb/inference.h"

namespace {

const std::string kV8 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
const std::string kY26 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";

// `ywb val` of weights with the benchmark's batch and workers.
ywb::ValReport val(const std::string& data, const std::string& weights, bool rect, bool end2end) {
  ywb::ValOptions v;
  v.data = data;
  v.weights = weights;
  v.batch = 32;
  v.workers = 1;
  v.rect = rect;
  v.end2end = end2end;
  return ywb::validateWeights(v);
}
}  // namespace

class TestFormatBenchmark : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable())
      QSKIP("needs ONNX and OpenCV DNN in the build");
  }

  // The command line on yolov8n: five rows, all ok, the table and JSON files in the run folder.
  void everyFormatOfYolov8n() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    const CliResult r =
        ywbRun({"benchmark", QString::fromStdString("weights=" + kV8), QString::fromStdString("data=" + data),
                "batch=32", "workers=1", "project=" + dir.filePath("runs"), "--json"});
    QVERIFY2(r.code == 0, (r.out + r.err).constData());
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    const QJsonArray rows = j["rows"].toArray();
    QCOMPARE(j["images"].toInt(), 64);
    QCOMPARE(rows.size(), 5);
    QStringList formats;
    for (const auto& v : rows) formats << v.toObject()["format"].toString();
    QCOMPARE(formats,
             (QStringList{"weights", "safetensors", "onnx", "onnx fp16 weights", "torchscript, squares"}));
    const auto row = [&](int k) { return rows[k].toObject(); };
    for (int k = 0; k < 5; ++k) {
      QVERIFY2(row(k)["ok"].toBool(), qPrintable(row(k)["error"].toString()));
      const std::string file = row(k)["file"].toString().toStdString();
      QCOMPARE(row(k)["size_mb"].toDouble(), double(std::filesystem::file_size(file)) / 1e6);
      QVERIFY(row(k)["ms_inference"].toDouble() > 0);
      qInfo("%-18s %s mAP50-95 %.5f", qPrintable(formats[k]), qPrintable(row(k)["runtime"].toString()),
            row(k)["mAP50-95"].toDouble());
    }
    const double ref = row(0)["mAP50-95"].toDouble();
    QVERIFY(ref > 0.05);
    QCOMPARE(row(1)["mAP50-95"].toDouble(), ref);
    QCOMPARE(row(1)["mAP50"].toDouble(), row(0)["mAP50"].toDouble());
    QVERIFY(std::fabs(row(2)["mAP50-95"].toDouble() - ref) <= 1e-3);
    QVERIFY(std::fabs(row(3)["mAP50-95"].toDouble() - ref) <= 5e-3);
    QVERIFY(row(2)["runtime"].toString().startsWith("OpenCV DNN"));
    QVERIFY(row(3)["size_mb"].toDouble() < 0.6 * row(2)["size_mb"].toDouble());
    QVERIFY(row(4)["runtime"].toString().contains("TorchScript interpreter"));
    QVERIFY(std::fabs(row(4)["mAP50-95"].toDouble() - val(data, kV8, /*rect=*/false, true).metrics.map) <=
            1e-3);
    const QString folder = j["folder"].toString();
    QVERIFY(QFileInfo(folder + "/benchmarks.txt").size() > 0);
    QVERIFY(QFileInfo(folder + "/benchmarks.json").size() > 0);
    QVERIFY(QFileInfo(row(2)["file"].toString()).absolutePath() == QFileInfo(folder).absoluteFilePath());
  }

  // YOLO26 without ONNX Runtime: its end-to-end graphs cannot run here (OpenCV 4.6 has no TopK), so those
  // rows fail saying what to install; the one-to-many graph runs in OpenCV and scores as the weights do
  // with end2end=false.
  void aFormatThatCannotRunIsARow() {
    QTemporaryDir dir;
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    qputenv("YWB_ONNXRUNTIME_DIR", dir.filePath("no-onnxruntime").toUtf8());
    ywb::FormatBenchmarkOptions o;
    o.weights = kY26;
    o.data = data;
    o.batch = 32;
    o.workers = 1;
    o.out_dir = dir.path().toStdString();
    int reported = 0;
    o.on_row = [&](const ywb::FormatBenchmarkRow&) { ++reported; };
    const ywb::FormatBenchmarkReport rep = ywb::benchmarkFormats(o);
    qunsetenv("YWB_ONNXRUNTIME_DIR");
    QCOMPARE(reported, 6);
    QCOMPARE(rep.rows.size(), size_t(6));
    QCOMPARE(rep.rows[2].format, std::string("onnx end-to-end"));
    for (int k : {2, 3}) {
      QVERIFY(!rep.rows[size_t(k)].ok);
      QVERIFY2(rep.rows[size_t(k)].error.find("installer/install-onnxruntime.sh") != std::string::npos,
               rep.rows[size_t(k)].error.c_str());
    }
    const ywb::FormatBenchmarkRow& o2m = rep.rows[4];
    QCOMPARE(o2m.format, std::string("onnx one-to-many + NMS"));
    QVERIFY2(o2m.ok, o2m.error.c_str());
    QVERIFY(!o2m.nms_free && rep.rows[0].nms_free);
    // TorchScript needs no ONNX Runtime: its end-to-end model runs in LibTorch, NMS-free.
    const ywb::FormatBenchmarkRow& ts = rep.rows[5];
    QCOMPARE(ts.format, std::string("torchscript end-to-end, squares"));
    QVERIFY2(ts.ok, ts.error.c_str());
    QVERIFY(ts.nms_free && ts.map > 0.05);
    const ywb::ValReport nms = val(data, kY26, true, /*end2end=*/false);
    QVERIFY(std::fabs(o2m.map - nms.metrics.map) <= 1e-3);
    QVERIFY(nms.metrics.map != rep.rows[0].map);  // the two heads differ: the comparison is not blind
  }
};

QTEST_GUILESS_MAIN(TestFormatBenchmark)
#include "test_format_benchmark.moc"
