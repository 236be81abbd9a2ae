// The Export tab's benchmark over the real engine call (ywb::benchmarkFormats on the panel's worker thread):
// Ultralytics' trained yolov8n on the shapes set, every format exported into a new runs/detect/benchmark
// folder and validated. The judges: the rows arrive in the engine's order, all validated; the weights' row
// is exactly `ywb val`'s numbers for the same options (validateWeights, run here); each export scores within
// the tolerance its format allows (test_format_benchmark's: 1e-3 for ONNX, 5e-3 with fp16 weights); the
// table shows each row's numbers; benchmarks.txt holds the command's lines. A missing data.yaml ends in the
// engine's message in the status line.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "benchmark_panel.h"
#include "export_tab.h"
#include "support/screenshots.h"
#include "support/shapes_copy.h"
#include "ywb/export.h"
#include "ywb/inference.h"

using ywb::gui::BenchmarkPanel;
using ywb::gui::ExportTab;

namespace {
const QString kWeights = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
}  // namespace

class TestBenchmarkPanel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void benchmarksEveryFormatFromTheExportTab() {
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable())
      QSKIP("needs ONNX and OpenCV DNN in the build");
    QTemporaryDir tmp;
    const QString data = QString::fromStdString(copyShapesDataset(tmp.path().toStdString())) + "/data.yaml";
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(tmp.path()));  // runs/detect/benchmark goes here
    ExportTab tab;
    tab.resize(1280, 900);
    tab.show();
    tab.findChild<QLineEdit*>("exportWeights")->setText(kWeights);
    auto* panel = tab.findChild<BenchmarkPanel*>("benchmarkPanel");
    QVERIFY(panel);
    tab.findChild<QTabWidget*>("exportPages")->setCurrentWidget(panel);  // the page under the files
    panel->setData(data);
    QSignalSpy done(panel, &BenchmarkPanel::finished);
    tab.findChild<QPushButton*>("benchmarkButton")->click();
    QVERIFY(panel->busy());
    QVERIFY(!tab.findChild<QPushButton*>("benchmarkButton")->isEnabled());
    QVERIFY(done.wait(600000));
    QCOMPARE(done.last().first().toInt(), 0);
    QVERIFY(!panel->busy());

    const auto& rows = panel->rows();
    QStringList formats;
    for (const auto& r : rows) formats << QString::fromStdString(r.format);
    QCOMPARE(formats,
             (QStringList{"weights", "safetensors", "onnx", "onnx fp16 weights", "torchscript, squares"}));
    for (const auto& r : rows) QVERIFY2(r.ok, r.error.c_str());
    ywb::ValOptions v;  // the benchmark's validation options: its split, batch and workers
    v.weights = kWeights.toStdString();
    v.data = data.toStdString();
    v.batch = 16;
    v.workers = 2;
    const ywb::ValReport ref = ywb::validateWeights(v);
    QCOMPARE(rows[0].map, ref.metrics.map);
    QCOMPARE(rows[0].map50, ref.metrics.map50);
    QCOMPARE(rows[1].map, ref.metrics.map);  // the same weights, as safetensors
    QVERIFY(std::fabs(rows[2].map - ref.metrics.map) <= 1e-3);
    QVERIFY(std::fabs(rows[3].map - ref.metrics.map) <= 5e-3);

    auto* table = tab.findChild<QTableWidget*>("benchmarkTable");
    QCOMPARE(table->rowCount(), 5);
    for (int k = 0; k < 5; ++k) {
      QCOMPARE(table->item(k, 0)->text(), formats[k]);
      QCOMPARE(table->item(k, 2)->text(), QString::number(rows[size_t(k)].map, 'f', 4));
      QCOMPARE(table->item(k, 6)->text(), QString::fromStdString(rows[size_t(k)].runtime));
    }
    const QString folder = panel->folder();
    QCOMPARE(folder, QDir(tmp.path()).absoluteFilePath("runs/detect/benchmark"));
    QFile txt(folder + "/benchmarks.txt");
    QVERIFY(txt.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(txt.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines[0], QString::fromStdString(ywb::benchmarkHeader()));
    for (int k = 0; k < 5; ++k)
      QCOMPARE(lines[k + 1], QString::fromStdString(ywb::benchmarkRowLine(rows[size_t(k)])));
    QVERIFY(QFileInfo::exists(folder + "/benchmarks.json"));
    auto* status = tab.findChild<QLabel*>("benchmarkStatus");
    QVERIFY2(status->text().contains("5 formats, all validated"), qPrintable(status->text()));
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/export_benchmark.png"));

    // A data.yaml that is not there: the engine's message, and the panel is ready again.
    panel->setData(tmp.path() + "/missing.yaml");
    tab.findChild<QPushButton*>("benchmarkButton")->click();
    QVERIFY(done.wait(120000));
    QCOMPARE(done.last().first().toInt(), 1);
    QVERIFY2(status->text().startsWith("Benchmark failed:") && status->text().contains("missing.yaml"),
             qPrintable(status->text()));
    QVERIFY(tab.findChild<QPushButton*>("benchmarkButton")->isEnabled());
    QVERIFY(QDir::setCurrent(cwd));
  }
};

QTEST_MAIN(TestBenchmarkPanel)
#include "test_benchmark_panel.moc"
