// Smoke tests of `ywb model info` and `ywb bench model` as a user runs them (real process).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <map>

#include "cli_runner.h"

using Result = CliResult;

class TestModelCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void modelInfoJson() {
    const Result r = ywbRun({"model", "info", "model=yolov8n.yaml", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    const QJsonObject t = j["totals"].toObject();
    QCOMPARE(t["parameters"].toDouble(), 3157200.0);  // Ultralytics' yolov8n (GUIDE 7)
    QCOMPARE(t["gradients"].toDouble(), 3157184.0);   // all but the 16 DFL weights
    QVERIFY(std::abs(t["gflops"].toDouble() - 8.7) < 0.05);
    QCOMPARE(t["gflops_fused"].toBool(), true);
  }

  void modelInfoTextAndErrors() {
    const Result r = ywbRun({"model", "info", "model=yolov8s.yaml", "nc=3", "imgsz=320"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("Detect") && r.out.contains("C2f"), r.out.constData());
    // The backbone's extent, for choosing freeze=: Ultralytics' yolov8.yaml has 10 backbone rows (0-9, SPPF
    // last), yolo11.yaml and yolo26.yaml 11 (0-10, C2PSA last).
    QVERIFY2(r.out.contains("backbone: layers 0-9 (freeze=10 trains only the neck and head)"),
             r.out.constData());
    QCOMPARE(QJsonDocument::fromJson(ywbRun({"model", "info", "model=yolo26n.yaml", "--json"}).out)
                 .object()["backbone_layers"]
                 .toInt(),
             11);
    const Result bad = ywbRun({"model", "info", "model=yolov8q.yaml"});
    QVERIFY(bad.code != 0);
    QVERIFY2(bad.err.contains("yolov8n.yaml"), bad.err.constData());
  }

  void benchModelRuns() {
    const Result r = ywbRun({"bench", "model", "imgsz=64", "batch=2", "iters=1", "warmup=0", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QVERIFY2(j["images_per_s"].toDouble() > 0, r.out.constData());
    QVERIFY(std::isfinite(j["last_loss"].toDouble()));
    QVERIFY(j["forward_ms"].toDouble() > 0 && j["backward_ms"].toDouble() > 0);
    QVERIFY(!j.contains("operators"));  // recorded only when asked
    // The forward's FLOPs per step: 2 images of 64 px at yolov8n's 8.7 GFLOPs per 640 px image (Ultralytics'
    // figure; FLOPs follow the area): 2 x 0.087. The rates are those FLOPs over the medians printed beside.
    QVERIFY2(std::abs(j["forward_gflop"].toDouble() - 0.174) < 0.001, r.out.constData());
    QCOMPARE(j["forward_gflops_per_s"].toDouble(),
             j["forward_gflop"].toDouble() / (j["forward_ms"].toDouble() / 1000.0));
    QCOMPARE(j["backward_gflops_per_s"].toDouble(),
             2 * j["forward_gflop"].toDouble() / (j["backward_ms"].toDouble() / 1000.0));
    QVERIFY(!j.contains("matmul_gflops_per_s"));  // timed only when asked
    // peak=true: the device's own matrix-product rate, and the text's shares of it.
    const Result p = ywbRun({"bench", "model", "imgsz=64", "batch=2", "iters=1", "warmup=0", "peak=true"});
    QVERIFY2(p.code == 0, p.err.constData());
    QVERIFY2(p.out.contains("1024x1024 fp32 matrix product") && p.out.contains("% of it"), p.out.constData());
    const Result pj =
        ywbRun({"bench", "model", "imgsz=64", "batch=2", "iters=1", "warmup=0", "peak=true", "--json"});
    const QJsonObject k = QJsonDocument::fromJson(pj.out).object();
    QCOMPARE(k["matmul_n"].toInt(), 1024);
    QVERIFY2(k["matmul_gflops_per_s"].toDouble() > 0, pj.out.constData());
  }

  // ops=N: `iters` further steps with every operator recorded, the N with the most self time listed.
  void benchModelOperators() {
    const Result r =
        ywbRun({"bench", "model", "imgsz=64", "batch=2", "iters=2", "warmup=0", "ops=500", "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject ops = QJsonDocument::fromJson(r.out).object()["operators"].toObject();
    QCOMPARE(ops["steps"].toInt(), 2);
    const QJsonArray list = ops["ops"].toArray();
    QVERIFY2(list.size() > 10 && list.size() < 500, r.out.constData());  // all of them: fewer than 500 kinds
    std::map<QString, double> calls;
    double previous = 1e300;
    for (const auto& v : list) {
      const QJsonObject op = v.toObject();
      QVERIFY(op["self_ms"].toDouble() <= previous);  // most self time first
      previous = op["self_ms"].toDouble();
      calls[op["name"].toString()] = op["calls"].toDouble();
    }
    // Every convolution of the step runs forward and backward once: equal counts, whole per step.
    QVERIFY(calls["aten::convolution"] > 20);
    QCOMPARE(calls["aten::convolution"], calls["ConvolutionBackward0"]);
    QCOMPARE(calls["aten::convolution"], std::round(calls["aten::convolution"]));
    const Result bad = ywbRun({"bench", "model", "imgsz=64", "iters=1", "ops=-2"});
    QVERIFY(bad.code != 0);
    QVERIFY2(bad.err.contains("ops=-2"), bad.err.constData());
  }

  // YOLO26's step as a run trains it (forwardHeads, the end-to-end loss on both branches, reg_max 1) with
  // SGD and with MuSGD, its optimizer for long runs. The first step's loss is taken before any update: the
  // same for both optimizers.
  void benchModelYolo26() {
    double first = -1;
    for (const QString opt : {"SGD", "MuSGD"}) {
      const Result r = ywbRun({"bench", "model", "model=yolo26n.yaml", "nc=6", "imgsz=64", "batch=2",
                               "iters=1", "warmup=0", "optimizer=" + opt, "--json"});
      QVERIFY2(r.code == 0, r.err.constData());
      const QJsonObject j = QJsonDocument::fromJson(r.out).object();
      QVERIFY2(j["total_ms"].toDouble() > 0 && j["loss_ms"].toDouble() > 0, r.out.constData());
      const double loss = j["last_loss"].toDouble();
      QVERIFY2(std::isfinite(loss) && loss > 0, r.out.constData());
      if (first < 0) first = loss;
      QCOMPARE(loss, first);
    }
  }
};

QTEST_GUILESS_MAIN(TestModelCli)
#include "test_model_cli.moc"
