// Test-time augmentation (augment=true in `ywb val` and `ywb predict`, Ultralytics' TTA): the scaled and
// padded inputs, the passes' boxes mapped back to the input, the levels each pass gives up, and the real
// model through val and predict. No Ultralytics output with augment=True is among the fixtures, so the
// expected numbers below are derived by hand from the rules in model/test_time_augment.h.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "cli_runner.h"
#include "model/test_time_augment.h"
#include "support/error_of.h"
#include "support/shapes_copy.h"
#include "ywb/error.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace {

const std::string kUltra = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics";
const std::string kUltra84 = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics84";

std::string copyShapes(const QTemporaryDir& dir) {
  return copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
}

// A stand-in detector for strides 8, 16, 32: every anchor reports the box around the input's bright pixels
// (above 0.9 in channel 0; the 0.447 padding is not bright) in the input's pixels, class 0 scores 0.9 and
// class 1 carries a marker: pass * 10 + level (the pass counted by calls).
struct BrightBoxDetector {
  int calls = 0;
  at::Tensor operator()(const at::Tensor& x) {
    const int64_t h = x.size(2), w = x.size(3);
    const at::Tensor bright = x[0][0].gt(0.9);
    const at::Tensor rows = bright.any(1).nonzero(), cols = bright.any(0).nonzero();
    const float y1 = float(rows.min().item<int64_t>()), y2 = float(rows.max().item<int64_t>() + 1);
    const float x1 = float(cols.min().item<int64_t>()), x2 = float(cols.max().item<int64_t>() + 1);
    std::vector<at::Tensor> levels;
    int level = 0;
    for (const int64_t s : {8, 16, 32}) {
      const int64_t a = (h / s) * (w / s);
      at::Tensor p = at::empty({1, 6, a});
      p[0][0].fill_((x1 + x2) / 2);
      p[0][1].fill_((y1 + y2) / 2);
      p[0][2].fill_(x2 - x1);
      p[0][3].fill_(y2 - y1);
      p[0][4].fill_(0.9);
      p[0][5].fill_(float(calls * 10 + level++));
      levels.push_back(p);
    }
    ++calls;
    return at::cat(levels, 2);
  }
};

}  // namespace

class TestTestTimeAugment : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Sizes by hand: 480 x 0.83 = 398.4 -> 398 rows of image, ceil(398.4 / 32) = 13 -> 416 in all; 640 x 0.83 =
  // 531.2 -> 531, ceil(16.6) = 17 -> 544. 480 x 0.67 = 321.6 -> 321 (352); 640 x 0.67 = 428.8 -> 428 (448).
  void scaledInputsArePaddedToTheStride() {
    const at::Tensor x = at::rand({2, 3, 480, 640});
    QVERIFY(ywb::model::scaleImage(x, 1.0, 32).is_same(x));
    const at::Tensor a = ywb::model::scaleImage(x, 0.83, 32);
    QCOMPARE(a.sizes().vec(), (std::vector<int64_t>{2, 3, 416, 544}));
    QVERIFY(a.narrow(2, 398, 416 - 398).eq(float(0.447)).all().item<bool>());  // bottom padding
    QVERIFY(a.narrow(3, 531, 544 - 531).eq(float(0.447)).all().item<bool>());  // right padding
    QVERIFY(a.narrow(2, 0, 398).narrow(3, 0, 531).lt(1.0001).all().item<bool>());
    const at::Tensor b = ywb::model::scaleImage(x, 0.67, 32);
    QCOMPARE(b.sizes().vec(), (std::vector<int64_t>{2, 3, 352, 448}));
    QVERIFY(b.narrow(2, 321, 352 - 321).eq(float(0.447)).all().item<bool>());
    QVERIFY(b.narrow(3, 428, 448 - 428).eq(float(0.447)).all().item<bool>());
  }

  // Bilinear with half-pixel centres (PyTorch's align_corners=False): a ramp v(c) = c over 64 columns scaled
  // to int(64 x 0.83) = 53 samples column j at (j + 0.5) x 64 / 53 - 0.5, and a ramp interpolates to exactly
  // that position (away from the clamped edges).
  void scalingSamplesAtHalfPixelCentres() {
    const at::Tensor ramp = at::arange(64, at::kFloat).view({1, 1, 1, 64}).expand({1, 3, 8, 64}).contiguous();
    const at::Tensor s = ywb::model::scaleImage(ramp, 0.83, 32);
    QCOMPARE(s.size(3), int64_t(64));  // 53 columns padded to 64
    for (int j = 1; j < 52; ++j) {
      const double expected = (j + 0.5) * 64.0 / 53.0 - 0.5;
      QVERIFY2(std::abs(s[0][1][3][j].item<double>() - expected) < 1e-4, QByteArray::number(j));
    }
  }

  // A white rectangle, columns 40..99 and rows 60..139 of a 256 x 320 input: xywh (70, 100, 60, 80). Every
  // pass's boxes come back to it (the scaled rectangle's blurred edge: within 1 pixel of the scaled input, so
  // 1 / 0.67 of the input's), the mirrored pass's too (undone: without it x would read 320 - 70 = 250).
  // Anchors by hand (levels 8, 16, 32): 256 x 320 -> 1280 + 320 + 80, its 80 coarsest dropped: 1600;
  // 0.83x -> 212 x 265 padded to 224 x 288 -> 1008 + 252 + 63 = 1323, all kept; 0.67x -> 171 x 214 padded to
  // 192 x 224 -> 672 + 168 + 42, its 672 finest dropped: 210. In all 3133, in pass order.
  void passesComeBackToTheInputsPixels() {
    at::Tensor x = at::zeros({1, 3, 256, 320});
    x.narrow(2, 60, 80).narrow(3, 40, 60).fill_(1.0);
    BrightBoxDetector det;
    const at::Tensor p = ywb::model::augmentedPrediction(x, {8, 16, 32}, std::ref(det));
    QCOMPARE(det.calls, 3);
    QCOMPARE(p.sizes().vec(), (std::vector<int64_t>{1, 6, 3133}));
    const double expected[4] = {70, 100, 60, 80};
    for (int k = 0; k < 4; ++k) {
      const double err = (p[0][k] - expected[k]).abs().max().item<double>();
      QVERIFY2(err <= 1.0 / 0.67 + 1e-3, QByteArray::number(k) + ": " + QByteArray::number(err));
    }
    QVERIFY(p[0][4].eq(float(0.9)).all().item<bool>());  // scores untouched
    const at::Tensor marker = p[0][5];
    auto count = [&](int64_t from, int64_t n, float value) {
      return marker.narrow(0, from, n).eq(value).all().item<bool>();
    };
    QVERIFY(count(0, 1280, 0) && count(1280, 320, 1));                              // full size: P3, P4
    QVERIFY(count(1600, 1008, 10) && count(2608, 252, 11) && count(2860, 63, 12));  // 0.83x: all
    QVERIFY(count(2923, 168, 21) && count(3091, 42, 22));                           // 0.67x: P4, P5

    // Given the full-size pass, it is not run again and its result is used as given.
    BrightBoxDetector again;
    const at::Tensor first = again(x);
    const at::Tensor q = ywb::model::augmentedPrediction(x, {8, 16, 32}, std::ref(again), first);
    QCOMPARE(again.calls, 3);
    QVERIFY(q.equal(p));

    // A pass that does not fit its input is an error naming the pass and the sizes.
    const std::string e = errorOf([&] {
      ywb::model::augmentedPrediction(x, {8, 16, 32}, [](const at::Tensor&) { return at::zeros({1, 6, 7}); });
    });
    QVERIFY2(
        e.find("1x pass gave [1, 6, 7], expected [N, 4 + nc, 1680] for a 256x320 input") != std::string::npos,
        e.c_str());
  }

  // The real model: validation with augment=true reports it, its losses are the plain input's (bit for bit),
  // and its detections still find the objects (mAP50 at least 0.8 of the plain run's; a mirrored pass left
  // unmirrored, or boxes left at their scale, would put a third of the boxes beside the objects).
  void validationAugments() {
    QTemporaryDir dir;
    ywb::ValOptions o;
    o.data = copyShapes(dir);
    o.weights = kUltra + "/yolov8n-shapes.pt";
    o.workers = 0;
    const ywb::ValReport plain = ywb::validateWeights(o);
    o.augment = true;
    const ywb::ValReport tta = ywb::validateWeights(o);
    QVERIFY(!plain.augmented && tta.augmented);
    QCOMPARE(tta.box_loss, plain.box_loss);
    QCOMPARE(tta.cls_loss, plain.cls_loss);
    QCOMPARE(tta.dfl_loss, plain.dfl_loss);
    qInfo("mAP50 %.4f plain, %.4f augmented; mAP50-95 %.4f / %.4f; inference %.1f / %.1f ms per image",
          plain.metrics.map50, tta.metrics.map50, plain.metrics.map, tta.metrics.map, plain.ms_inference,
          tta.ms_inference);
    QVERIFY(tta.metrics.map50 >= 0.8 * plain.metrics.map50);
    QVERIFY(tta.metrics.map50 != plain.metrics.map50);  // the passes were added
  }

  // Prediction: each confident plain detection (above 0.4) is found again (same class, IoU 0.7) among the
  // augmented ones. An end-to-end model's NMS-free path runs one pass, as Ultralytics' (the same boxes as
  // without).
  void predictionAugmentsAndEndToEndRunsOnePass() {
    ywb::PredictOptions o;
    o.weights = kUltra + "/yolov8n-shapes.pt";
    o.source = kUltra + "/shapes/images/val";
    o.save_txt = false;
    const ywb::PredictReport plain = ywb::predictImages(o);
    o.augment = true;
    const ywb::PredictReport tta = ywb::predictImages(o);
    QVERIFY(tta.augmented && !plain.augmented);
    QCOMPARE(tta.images.size(), plain.images.size());
    int confident = 0;
    for (size_t i = 0; i < plain.images.size(); ++i) {
      for (const auto& b : plain.images[i].boxes) {
        if (b.score < 0.4) continue;
        ++confident;
        bool found = false;
        for (const auto& t : tta.images[i].boxes) {
          const double iw = std::max(0.f, std::min(b.x2, t.x2) - std::max(b.x1, t.x1));
          const double ih = std::max(0.f, std::min(b.y2, t.y2) - std::max(b.y1, t.y1));
          const double inter = iw * ih;
          const double uni = (b.x2 - b.x1) * (b.y2 - b.y1) + (t.x2 - t.x1) * (t.y2 - t.y1) - inter;
          found = found || (t.cls == b.cls && inter / uni > 0.7);
        }
        QVERIFY2(found, plain.images[i].path.c_str());
      }
    }
    qInfo("%d plain detections above 0.4, each found again", confident);
    QVERIFY(confident >= 5);

    o.weights = kUltra84 + "/yolo26n-shapes.pt";
    o.augment = false;
    const ywb::PredictReport e2e = ywb::predictImages(o);
    o.augment = true;
    const ywb::PredictReport e2e_aug = ywb::predictImages(o);
    QVERIFY(e2e_aug.nms_free && !e2e_aug.augmented);
    for (size_t i = 0; i < e2e.images.size(); ++i) {
      QCOMPARE(e2e_aug.images[i].boxes.size(), e2e.images[i].boxes.size());
      for (size_t k = 0; k < e2e.images[i].boxes.size(); ++k)
        QCOMPARE(e2e_aug.images[i].boxes[k].score, e2e.images[i].boxes[k].score);
    }
    o.end2end = false;  // its one-to-many head with NMS is augmented
    QVERIFY(ywb::predictImages(o).augmented);
  }

  // The command line: augment= on val (its --json says so) and the note when it does not apply.
  void commandLine() {
    QTemporaryDir dir;
    const std::string data = copyShapes(dir);
    CliResult r = ywbRun({"val", QString::fromStdString("data=" + data),
                          QString::fromStdString("weights=" + kUltra + "/yolov8n-shapes.pt"), "plots=false",
                          "workers=0", "augment=true", "--json"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("\"augmented\": true"), r.out.constData());
    r = ywbRun({"predict", QString::fromStdString("weights=" + kUltra84 + "/yolo26n-shapes.pt"),
                QString::fromStdString("source=" + kUltra + "/shapes/images/val"),
                QString::fromStdString("project=" + dir.path().toStdString()), "save=false", "augment=true"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("augment=true has no effect on an end-to-end model's NMS-free path"),
             r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestTestTimeAugment)
#include "test_test_time_augment.moc"
