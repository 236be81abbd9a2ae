// Validation that detects what Ultralytics detects: its save_json ids, OpenCV-exact JPEG decoding, its
// rectangular validation batches, and — on Ultralytics' own checkpoints and its published outputs in
// ../shared/fixtures/ultralytics — the same COCO numbers and the same detections.
#include <torch/autograd.h>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <opencv2/imgproc.hpp>

#ifdef YW_TEST_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include "cli_runner.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/loader.h"
#include "eval/coco_ids.h"
#include "loss/detection_loss.h"
#include "support/error_of.h"
#include "support/shapes_copy.h"
#include "train/model_loader.h"
#include "train/validator.h"
#include "ywb/error.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace {

const std::string kUltra = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics";
const std::string kUltra84 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84";

QJsonDocument readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll());
}

std::string copyShapes(const QTemporaryDir& dir) {
  return copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
}

double iou(const QJsonArray& a, const QJsonArray& b) {  // COCO [x, y, w, h]
  const double ax2 = a[0].toDouble() + a[2].toDouble(), ay2 = a[1].toDouble() + a[3].toDouble();
  const double bx2 = b[0].toDouble() + b[2].toDouble(), by2 = b[1].toDouble() + b[3].toDouble();
  const double iw = std::max(0.0, std::min(ax2, bx2) - std::max(a[0].toDouble(), b[0].toDouble()));
  const double ih = std::max(0.0, std::min(ay2, by2) - std::max(a[1].toDouble(), b[1].toDouble()));
  const double inter = iw * ih;
  return inter / (a[2].toDouble() * a[3].toDouble() + b[2].toDouble() * b[3].toDouble() - inter);
}

// The highest-scoring detection of every image (the first in file order on equal scores).
std::map<QString, QJsonObject> topPerImage(const QJsonArray& dets) {
  std::map<QString, QJsonObject> top;
  for (const auto& v : dets) {
    const QJsonObject d = v.toObject();
    const QString id = d["image_id"].toVariant().toString();
    auto it = top.find(id);
    if (it == top.end() || d["score"].toDouble() > it->second["score"].toDouble()) top[id] = d;
  }
  return top;
}

}  // namespace

class TestValParity : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // save_json ids as Ultralytics writes them: the file stem (an int when all digits), class + 1 for custom
  // data, COCO's 91-ids on COCO's own val2017 list; bbox [x, y, w, h] to 3 decimals, score to 5.
  void resultsJsonIdsAsUltralytics() {
    ywb::ImageDetections a;
    a.path = "/data/shapes/images/val/val_00044.jpg";
    a.boxes = {{55.94f, 18.6064f, 81.8581f, 51.4671f, 0.286951f, 0},
               {1.0804f, 49.2824f, 16.4764f, 65.1674f, 0.16f, 5}};
    ywb::ImageDetections b;
    b.path = "/coco/images/val2017/000000397133.jpg";
    b.boxes = {{0, 0, 10, 10, 0.5f, 79}};
    const auto ids6 = ywb::eval::cocoCategoryIds(false, 6);
    QCOMPARE(ids6, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
    const QJsonArray j =
        QJsonDocument::fromJson(QByteArray::fromStdString(ywb::eval::ultralyticsResultsJson({a}, ids6)))
            .array();
    QCOMPARE(j.size(), 2);
    const QJsonObject d0 = j[0].toObject();
    QCOMPARE(d0.keys(), (QStringList{"bbox", "category_id", "file_name", "image_id", "score"}));
    QCOMPARE(d0["image_id"].toString(), QString("val_00044"));
    QCOMPARE(d0["file_name"].toString(), QString("val_00044.jpg"));
    QCOMPARE(d0["category_id"].toInt(), 1);
    QCOMPARE(j[1].toObject()["category_id"].toInt(), 6);
    // 81.8581 - 55.94 = 25.9181 -> 25.918; 51.4671 - 18.6064 = 32.8607 -> 32.861; 0.286951 -> 0.28695.
    const QJsonArray bb = d0["bbox"].toArray();
    QCOMPARE(bb[0].toDouble(), 55.94);
    QCOMPARE(bb[1].toDouble(), 18.606);
    QCOMPARE(bb[2].toDouble(), 25.918);
    QCOMPARE(bb[3].toDouble(), 32.861);
    QCOMPARE(d0["score"].toDouble(), 0.28695);
    // COCO: Ultralytics' rule is a single list path containing "coco" ending in /val2017.txt.
    QVERIFY(ywb::eval::isCocoSplit({"/datasets/coco/val2017.txt"}));
    QVERIFY(!ywb::eval::isCocoSplit({"/datasets/coco128/images/train2017"}));
    QVERIFY(!ywb::eval::isCocoSplit({"/datasets/coco/val2017.txt", "/datasets/coco/more.txt"}));
    const auto ids80 = ywb::eval::cocoCategoryIds(true, 80);
    QCOMPARE(ids80.size(), size_t(80));
    QCOMPARE(ids80[11], int64_t(13));  // stop sign: COCO id 13 (id 12 is unused)
    QCOMPARE(ids80[79], int64_t(90));  // toothbrush
    const QJsonObject c =
        QJsonDocument::fromJson(QByteArray::fromStdString(ywb::eval::ultralyticsResultsJson({b}, ids80)))
            .array()[0]
            .toObject();
    QVERIFY(c["image_id"].isDouble());
    QCOMPARE(c["image_id"].toInteger(), qint64(397133));
    QCOMPARE(c["category_id"].toInt(), 90);
    const std::vector<ywb::ImageDetections> class79 = {b};
    QVERIFY_EXCEPTION_THROWN(ywb::eval::ultralyticsResultsJson(class79, ids6), ywb::Error);
  }

  // fast=false decodes JPEG exactly as OpenCV's imread (what Ultralytics reads), full size then a linear
  // resize; checked bit for bit on real photos (coco128) and on the shapes set.
  void exactDecodeIsOpenCvImread() {
#ifndef YW_TEST_IMGCODECS
    QSKIP("this build has no OpenCV imgcodecs to compare with");
#else
    std::vector<std::string> files;
    for (const auto& dir :
         {std::string(YW_SHARED_DIR) + "/datasets/coco128/images/val2017", kUltra + "/shapes/images/val"}) {
      std::vector<std::string> all;
      for (const auto& e : fs::directory_iterator(dir)) all.push_back(e.path().string());
      std::sort(all.begin(), all.end());
      for (size_t i = 0; i < all.size() && i < 40; i += 5) files.push_back(all[i]);
    }
    QVERIFY(files.size() >= 10);
    for (const auto& f : files) {
      const cv::Mat ref = cv::imread(f, cv::IMREAD_COLOR);
      const cv::Mat ours = ywb::loadImage(f, 0, /*fast=*/false);
      QCOMPARE(ours.size(), ref.size());
      QVERIFY2(cv::norm(ours, ref, cv::NORM_INF) == 0, f.c_str());
      // Ultralytics' load_image: long side to imgsz (here 160, several times smaller), INTER_LINEAR.
      cv::Mat resized;
      cv::resize(ref, resized, ywb::resizedShape(ref.cols, ref.rows, 160), 0, 0, cv::INTER_LINEAR);
      const cv::Mat ours160 = ywb::loadImage(f, 160, /*fast=*/false);
      QCOMPARE(ours160.size(), resized.size());
      QVERIFY2(cv::norm(ours160, resized, cv::NORM_INF) == 0, f.c_str());
    }
#endif
  }

  // Ultralytics' validation batches: images sorted by aspect ratio h/w, batches of 16, per batch the shape
  // ceil([h, w] * imgsz / stride + 0.5) * stride with [h, w] = [max ar, 1] when all are landscape,
  // [1, 1 / min ar] when all portrait, else [1, 1]; each image letterboxed (no upscaling) into it, centred
  // with round(pad / 2 - 0.1) on the left/top. A 128 x 128 image at imgsz 128 lands on a 160-px side.
  void rectValidationBatches() {
    QTemporaryDir dir;
    const ywb::DataConfig cfg = ywb::loadDataConfig(copyShapes(dir));
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(cfg, "val"));
    std::vector<size_t> order(split->images.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto ar = [&](size_t i) { return double(split->images[i].height) / split->images[i].width; };
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return ar(x) < ar(y); });
    ywb::DataLoader loader(split, ywb::validationLoaderOptions(128, 16, 0));
    loader.startEpoch(0);
    ywb::Batch batch;
    size_t b = 0, seen = 0, square = 0;
    while (loader.next(batch)) {
      double mini = 1e9, maxi = 0;
      for (size_t k = b * 16; k < std::min(order.size(), (b + 1) * 16); ++k) {
        mini = std::min(mini, ar(order[k])), maxi = std::max(maxi, ar(order[k]));
      }
      const double sh = maxi < 1 ? maxi : 1, sw = mini > 1 ? 1 / mini : 1;
      const int64_t H = int64_t(std::ceil(sh * 128 / 32 + 0.5)) * 32,
                    W = int64_t(std::ceil(sw * 128 / 32 + 0.5)) * 32;
      QCOMPARE(batch.images.size(2), H);
      QCOMPARE(batch.images.size(3), W);
      for (size_t i = 0; i < batch.meta.size(); ++i) {
        const ywb::ImageMeta& m = batch.meta[i];
        QCOMPARE(size_t(m.index), order[b * 16 + i]);
        QCOMPARE(m.ratio_w, 1.0);  // long side already 128: no resize, no upscaling
        QCOMPARE(m.pad_x, std::round((W - m.orig_w) / 2.0 - 0.1));
        QCOMPARE(m.pad_y, std::round((H - m.orig_h) / 2.0 - 0.1));
        if (m.orig_w == 128 && m.orig_h == 128) {
          QCOMPARE(m.pad_x, 16.0);
          ++square;
        }
        ++seen;
      }
      ++b;
    }
    QCOMPARE(seen, size_t(64));
    QVERIFY(square > 0);
  }

  // The trainer validates each epoch in its mixed precision (val_amp, default on; Ultralytics validates in
  // half precision during AMP training the same way). On Ultralytics' shapes checkpoint, bf16 autocast reads
  // mAP50-95 0.1731 against fp32's 0.1742 (measured 2026-11-23): close, and not the same numbers, which shows
  // the autocast really ran. fp32 stays Ultralytics' number (expected.json, within 0.005).
  void trainingValidationInBf16StaysClose() {
    QTemporaryDir dir;
    const ywb::DataConfig cfg = ywb::loadDataConfig(copyShapes(dir));
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(cfg, "val"));
    ywb::LoadedModel lm = ywb::loadModelWeights(kUltra + "/yolov8n-shapes.pt", at::Device(at::kCPU));
    std::map<bool, ywb::DetectionResults> got;
    for (const bool bf16 : {false, true}) {
      ywb::DataLoader loader(split, ywb::validationLoaderOptions(128, 16, 0));
      ywb::ValidatorOptions vo;
      vo.autocast = bf16;
      vo.autocast_dtype = at::kBFloat16;
      got[bf16] =
          ywb::runValidation(*lm.model, loader, nullptr, int(lm.names.size()), vo, at::Device(at::kCPU))
              .metrics;
    }
    const double want = readJson(QString::fromStdString(kUltra) + "/val-yolov8n/expected.json")
                            .object()["stats"]
                            .toArray()[0]
                            .toDouble();
    qInfo("mAP50-95: fp32 %.4f, bf16 autocast %.4f (Ultralytics %.4f)", got[false].map, got[true].map, want);
    QVERIFY(std::fabs(got[false].map - want) <= 0.005);
    QVERIFY(std::fabs(got[true].map - got[false].map) <= 0.003);
    QVERIFY(got[true].map != got[false].map);
  }

  // `ywb val` on Ultralytics' checkpoints reports the COCO numbers of Ultralytics' own detections
  // (val-*/expected.json: pycocotools on its predictions.json) within 0.005 (8.3.253's) or 0.002 (8.4.52's,
  // issue 32: yolov8n with 8.4's SPPF, YOLO26n end-to-end without NMS), and its save_json detections
  // match Ultralytics' (top detection of every image: same class, IoU >= 0.95).
  void valMatchesUltralytics_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("fixtures");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("yolov8n") << "yolov8n" << QString::fromStdString(kUltra) << 0.005;
    QTest::newRow("yolo11n") << "yolo11n" << QString::fromStdString(kUltra) << 0.005;
    QTest::newRow("8.4 yolov8n") << "yolov8n" << QString::fromStdString(kUltra84) << 0.002;
    QTest::newRow("8.4 yolo26n") << "yolo26n" << QString::fromStdString(kUltra84) << 0.002;
  }
  void valMatchesUltralytics() {
    QFETCH(QString, model);
    QFETCH(QString, fixtures);
    QFETCH(double, tolerance);
    QTemporaryDir dir;
    const std::string yaml = copyShapes(dir);
    const QString weights = fixtures + "/" + model + "-shapes.pt";
    // Until this build reads PyTorch checkpoints (issue 13 section 1) there is nothing to validate; once it
    // does, `weights info` succeeds and the comparison below runs.
    if (ywbRun({"weights", "info", "weights=" + weights}).code != 0) {
      QSKIP(qPrintable("this build cannot read " + weights + " yet"));
    }
    const CliResult r =
        ywbRun({"val", "weights=" + weights, "data=" + QString::fromStdString(yaml), "imgsz=128", "workers=1",
                "save_json=true", "project=" + dir.path() + "/runs", "--json"});
    // YOLO11 modules arrive with issue 14; until then this build names the missing module and the row waits.
    if (r.code != 0 && r.err.contains("unknown module")) QSKIP(r.err.trimmed().constData());
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject got = QJsonDocument::fromJson(r.out).object();
    const QString ref = fixtures + "/val-" + model;
    const QJsonArray want = readJson(ref + "/expected.json").object()["stats"].toArray();
    const double map = got["mAP50-95"].toDouble(), map50 = got["mAP50"].toDouble();
    qInfo("%s (%s): mAP50-95 %.4f (Ultralytics %.4f), mAP50 %.4f (Ultralytics %.4f)", qPrintable(model),
          qPrintable(fixtures), map, want[0].toDouble(), map50, want[1].toDouble());
    QVERIFY2(std::fabs(map - want[0].toDouble()) <= tolerance, qPrintable(QString::number(map)));
    QVERIFY2(std::fabs(map50 - want[1].toDouble()) <= tolerance, qPrintable(QString::number(map50)));

    const auto ours = topPerImage(readJson(got["predictions"].toString()).array());
    const auto theirs = topPerImage(readJson(ref + "/predictions.json").array());
    QCOMPARE(ours.size(), theirs.size());
    int matched = 0;
    for (const auto& [id, t] : theirs) {
      QVERIFY2(ours.count(id), qPrintable("no detection for " + id));
      const QJsonObject& o = ours.at(id);
      QVERIFY2(o["image_id"] == t["image_id"] && o["file_name"] == t["file_name"], qPrintable(id));
      QVERIFY2(o["category_id"].toInt() == t["category_id"].toInt(), qPrintable(id));
      const double v = iou(o["bbox"].toArray(), t["bbox"].toArray());
      QVERIFY2(v >= 0.95, qPrintable(QString("%1: IoU %2").arg(id).arg(v)));
      ++matched;
    }
    QCOMPARE(matched, 64);
  }

  // The loss on trained weights, not only at initialisation (the loss-*.safetensors fixtures hold random
  // weights, where the DFL term is about log(16) whatever the targets): `ywb val batch=32` reports the mean
  // validation losses that Ultralytics' trainer logged for the same weights in the checkpoint's train_metrics
  // (its validation batch is twice the training batch of 16). The checkpoint stores the weights in fp16 and
  // Ultralytics validated them in fp32 before saving (8.4's on a GPU), hence 1e-3 and not bit identity. An
  // 8.4 YOLO26's losses are its one-to-one branch's box, cls and L1 (in dfl's place), as 8.4's validator logs
  // its E2ELoss items; 8.4 weights get 8.4's small-box rule, 8.3 weights 8.3's loss. Measured 2026-11-26: all
  // within 1.0e-4 (yolo26n 1.96785 / 2.16072 / 0.016833 vs 1.9679 / 2.16082 / 0.01683); 8.4 yolov8n's box
  // loss without the small-box rule was 1.81385 (Ultralytics 1.82104; with it 1.82109).
  // `before`: what `ywb val` printed for 8.3 weights before the loss was chosen in one place (main at
  // 5efa17e, 2026-11-26): that change must not move them.
  void valLossesMatchUltralyticsTraining_data() {
    QTest::addColumn<QString>("weights");
    QTest::addColumn<QList<double>>("before");
    const QString u83 = QString::fromStdString(kUltra), u84 = QString::fromStdString(kUltra84);
    QTest::newRow("8.3 yolov8n") << u83 + "/yolov8n-shapes.pt"
                                 << QList<double>{1.7837351560592651, 1.7473838329315186, 1.3303847312927246};
    QTest::newRow("8.3 yolo11n") << u83 + "/yolo11n-shapes.pt"
                                 << QList<double>{1.7898558378219604, 1.8349642753601074, 1.2903008460998535};
    QTest::newRow("8.4 yolov8n") << u84 + "/yolov8n-shapes.pt" << QList<double>{};
    QTest::newRow("8.4 yolo26n") << u84 + "/yolo26n-shapes.pt" << QList<double>{};
  }
  void valLossesMatchUltralyticsTraining() {
    QFETCH(QString, weights);
    QFETCH(QList<double>, before);
    QTemporaryDir dir;
    const std::string yaml = copyShapes(dir);
    const CliResult info = ywbRun({"weights", "info", "weights=" + weights, "--json"});
    QVERIFY2(info.code == 0, info.err.constData());
    const QJsonObject meta = QJsonDocument::fromJson(info.out).object();
    const QJsonObject want =
        QJsonDocument::fromJson(meta["metadata"].toObject()["train_metrics"].toString().toUtf8()).object();
    QVERIFY2(want.contains("val/dfl_loss"), info.out.constData());
    const CliResult r = ywbRun({"val", "weights=" + weights, "data=" + QString::fromStdString(yaml),
                                "imgsz=128", "batch=32", "workers=1", "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject got = QJsonDocument::fromJson(r.out).object()["losses"].toObject();
    int k = 0;
    for (const char* name : {"box", "cls", "dfl"}) {
      const double g = got[name].toDouble(), w = want[QString("val/%1_loss").arg(name)].toDouble();
      qInfo("%s loss: %.5f (Ultralytics %.5f)", name, g, w);
      QVERIFY2(w > 0 && std::fabs(g - w) <= 1e-3,
               qPrintable(QString("%1: %2 vs %3").arg(name).arg(g).arg(w)));
      if (!before.empty())
        QVERIFY2(std::fabs(g - before[k]) <= 1e-6 * before[k],
                 qPrintable(QString("%1: %2, before %3").arg(name).arg(g, 0, 'g', 17).arg(before[k])));
      ++k;
    }
  }

  // Validation losses of an end-to-end model (YOLO26) are its one-to-one branch's: the mean over the
  // validation batches of a task-aligned loss built here for that branch (top-k 7, then 1; reg_max 1, the L1
  // term in DFL's slot; 8.4's small-box rule) on the one-to-one maps. They do not depend on the inference
  // path: the NMS-free path (end2end=true) and the NMS path on the one-to-many maps report the same numbers.
  void endToEndValLossesAreTheOneToOneBranchs() {
    QTemporaryDir dir;
    const std::string yaml = copyShapes(dir);
    ywb::ValOptions o;
    o.data = yaml;
    o.weights = kUltra84 + "/yolo26n-shapes.pt";
    o.imgsz = 128;
    o.batch = 32;
    o.workers = 1;
    const ywb::ValReport e2e = ywb::validateWeights(o);
    o.end2end = false;
    const ywb::ValReport nms = ywb::validateWeights(o);
    QVERIFY(e2e.has_losses && nms.has_losses);
    QVERIFY(e2e.metrics.map != nms.metrics.map);  // two inference paths indeed
    QCOMPARE(nms.box_loss, e2e.box_loss);
    QCOMPARE(nms.cls_loss, e2e.cls_loss);
    QCOMPARE(nms.dfl_loss, e2e.dfl_loss);

    ywb::LoadedModel lm = ywb::loadModelWeights(o.weights, at::Device(at::kCPU));
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "val"));
    ywb::DataLoader loader(split, ywb::validationLoaderOptions(128, 32, 1));
    ywb::loss::DetectionLossOptions lo;
    lo.nc = 6;
    lo.reg_max = 1;
    lo.topk = 7;
    lo.topk2 = 1;
    const ywb::loss::DetectionLoss one2one(lo);
    torch::NoGradGuard no_grad;
    at::Tensor sum = at::zeros({3});
    int batches = 0;
    loader.startEpoch(0);
    ywb::Batch b;
    while (loader.next(b)) {
      const at::Tensor x = b.images.to(at::kFloat).div_(255.0);
      sum += one2one(lm.model->forwardHeads(x).one2one, b.targets).items;
      ++batches;
    }
    QCOMPARE(batches, 2);  // 64 images
    const at::Tensor mean = sum / double(batches);
    const double want[3] = {mean[0].item<double>(), mean[1].item<double>(), mean[2].item<double>()};
    const double got[3] = {e2e.box_loss, e2e.cls_loss, e2e.dfl_loss};
    for (int k = 0; k < 3; ++k) {
      qInfo("item %d: %.7f (by hand %.7f)", k, got[k], want[k]);
      QVERIFY(std::isfinite(got[k]) && got[k] > 0);
      QVERIFY2(std::fabs(got[k] - want[k]) <= 1e-6 * want[k], qPrintable(QString::number(k)));
    }
  }

  // A validation asked to stop (the GUI's Predictions tab closing) stops between batches and throws rather
  // than reporting a part of the split: 64 images in batches of 16 are 4 batches; the hook says stop at its
  // second question, so only the first batch runs.
  void validationCanBeCancelled() {
    QTemporaryDir dir;
    ywb::ValOptions o;
    o.data = copyShapes(dir);
    o.weights = kUltra + "/yolov8n-shapes.pt";
    o.batch = 16;
    o.workers = 1;
    int asked = 0;
    o.cancel = [&asked] { return ++asked >= 2; };
    QCOMPARE(qErrorOf([&] { ywb::validateWeights(o); }), QString("validation cancelled"));
    QCOMPARE(asked, 3);  // twice between batches, once after the loop to tell a stop from the end
  }
};

QTEST_GUILESS_MAIN(TestValParity)
#include "test_val_parity.moc"
