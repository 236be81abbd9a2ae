// Rectangular training batches (`rect=true`, Ultralytics' `rect`): the loader's order and shapes, the
// samples' geometry, and a real run with it.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "core/atomic_file.h"
#include "data/dataset_scanner.h"
#include "data/image_source.h"
#include "data/loader.h"
#include "data/sample_builder.h"
#include "data/sampler.h"
#include "support/error_of.h"
#include "support/tiny_run.h"
#include "ywb/augment.h"
#include "ywb/preview.h"
#include "ywb/synth.h"
#include "ywb/train_args.h"
#include "ywb/trainer.h"

namespace {

// The synthetic shapes set at 160 px (tinyDataset: 20 training images, seed 11): each image is 160 on one
// side and 120-160 on the other (h/w from 0.75 to 1.33), so sorted batches of four have shapes of their own.
std::shared_ptr<ywb::ScannedSplit> synthTrain(const QTemporaryDir& dir, std::string* yaml_out = nullptr) {
  const std::string yaml =
      ywb::test::tinyDataset(dir.path().toStdString(), {20, 4, 160, 11, ywb::SynthOptions{}.max_objects, 2});
  if (yaml_out) *yaml_out = yaml;
  return std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
}

// At imgsz 640 (20 strides a side) sorted batches of these aspects get shapes of their own; at 160 (5
// strides) the batches' extreme aspects round up to square.
constexpr int kImgsz = 640;

ywb::LoaderOptions rectTraining() {
  ywb::LoaderOptions o;  // as the trainer sets a rect=true run up
  o.imgsz = kImgsz;
  o.batch = 4;
  o.workers = 2;
  o.augment = true;
  o.rect = true;
  o.shuffle = true;
  o.seed = 3;
  o.hyp = ywb::augmentParamsOf(ywb::TrainArgs{});  // Ultralytics' defaults: Mosaic 1.0 among them
  return o;
}

double aspect(const ywb::ImageRecord& r) {
  return double(r.height) / r.width;
}

}  // namespace

class TestRectTrain : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void batchesAreAspectSortedAtTheirOwnShape() {
    // Ultralytics' rect training: the split sorted by h/w, the same order every epoch (no shuffle), each
    // batch at ceil(extreme aspect x imgsz / stride + pad) x stride with pad 0 (validation's is 0.5), one
    // image per sample (Mosaic off although mosaic=1.0, also when the trainer asks for multi-image samples).
    QTemporaryDir dir;
    const auto split = synthTrain(dir);
    ywb::DataLoader loader(split, rectTraining());
    loader.setMultiImageAugment(true);
    std::vector<std::string> first_epoch;
    int unpadded_differs = 0, non_square = 0;
    for (int epoch = 0; epoch < 2; ++epoch) {
      loader.startEpoch(epoch);
      ywb::Batch b;
      std::vector<std::string> paths;
      double last = 0;
      while (loader.next(b)) {
        std::vector<double> aspects;
        for (const auto& m : b.meta) {
          QVERIFY(!m.mosaic);
          const double a = aspect(split->images[size_t(m.index)]);
          QVERIFY(a >= last);  // aspect-sorted
          last = a;
          aspects.push_back(a);
        }
        // By hand for the shape: the rule's own function with training's pad 0.
        const cv::Size want = ywb::rectBatchShape(aspects, kImgsz, 32, 0.0);
        QCOMPARE(b.images.size(2), int64_t(want.height));
        QCOMPARE(b.images.size(3), int64_t(want.width));
        non_square += want.height != want.width;
        unpadded_differs += want != ywb::rectBatchShape(aspects, kImgsz, 32, 0.5);
        // Every box normalised inside its image.
        if (b.targets.size(0) > 0) {
          const at::Tensor xywh = b.targets.slice(1, 2, 6);
          QVERIFY(xywh.min().item<float>() >= 0.0f && xywh.max().item<float>() <= 1.0f);
        }
        paths.insert(paths.end(), b.paths.begin(), b.paths.end());
      }
      QCOMPARE(paths.size(), size_t(20));
      if (epoch == 0)
        first_epoch = paths;
      else
        QCOMPARE(paths, first_epoch);  // no shuffle
    }
    QVERIFY(non_square >= 2);        // the set has landscape and portrait ends
    QVERIFY(unpadded_differs >= 1);  // the training pad is not validation's
  }

  void withoutAugmentationASampleIsTheLetterbox() {
    // With every augmentation at 0 the rect training path (letterbox folded into the perspective warp at the
    // batch's shape) must place the image and its boxes where the plain letterbox does (validation's path,
    // a separate implementation): boxes within 0.5 px, pixels within rounding of the two resizes.
    QTemporaryDir dir;
    const auto split = synthTrain(dir);
    auto source = std::make_shared<ywb::ImageSource>(split, 160);
    const ywb::SampleBuilder train(source, true, ywb::AugmentParams::none());
    const ywb::SampleBuilder plain(source, false, ywb::AugmentParams::none());
    int compared = 0;
    for (size_t i = 0; i < split->images.size(); ++i) {
      const ywb::ImageRecord& r = split->images[i];
      const cv::Size shape = ywb::rectBatchShape({aspect(r)}, 160, 32, 0.0);
      if (shape.width == shape.height) continue;  // a square target is the square path (tested elsewhere)
      const ywb::Sample a = train.build(i, 7, false, shape), b = plain.build(i, 7, false, shape);
      QCOMPARE(a.image.size(), shape);
      QCOMPARE(b.image.size(), shape);
      QCOMPARE(a.boxes.size(), b.boxes.size());
      for (size_t k = 0; k < a.boxes.size(); ++k) {
        QCOMPARE(a.boxes[k].cls, b.boxes[k].cls);
        QVERIFY(
            std::abs(a.boxes[k].x1 - b.boxes[k].x1) < 0.5 && std::abs(a.boxes[k].y1 - b.boxes[k].y1) < 0.5 &&
            std::abs(a.boxes[k].x2 - b.boxes[k].x2) < 0.5 && std::abs(a.boxes[k].y2 - b.boxes[k].y2) < 0.5);
      }
      cv::Mat diff;
      cv::absdiff(a.image, b.image, diff);
      QVERIFY2(cv::mean(diff)[0] < 2.0,
               qPrintable(QString("image %1: mean difference %2").arg(i).arg(cv::mean(diff)[0])));
      ++compared;
    }
    QVERIFY(compared >= 5);
  }

  void aRunTrainsWithIt() {
    // The whole trainer with rect=true: it says what it does, trains, validates, and records the argument;
    // the replay of Ultralytics' square batches (ultralytics_stream) is refused beside it.
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {16, 4, 96, 8, 4});
    ywb::TrainArgs args = ywb::test::withArgs(ywb::test::tinyRunArgs(data, dir.path().toStdString()),
                                              {{"rect", "true"}, {"epochs", "1"}});
    ywb::test::LogLines logs;
    ywb::Trainer t(args);
    t.setObserver(&logs);
    const ywb::TrainSummary s = t.run();
    QCOMPARE(s.epochs_completed, 1);
    QVERIFY(logs.said("rect=true: training batches in aspect-ratio order"));
    QVERIFY(QString::fromStdString(ywb::readFile(s.run_dir + "/args.yaml")).contains("\nrect: true\n"));
    args.ultralytics_stream = 2;
    QVERIFY(qErrorOf([&] { args.validate(); }).contains("rect=true with ultralytics_stream=2"));
  }

  void previewShowsEachSampleAtItsShape() {
    // `ywb preview rect=true` and the Augmentation tab: each tile holds one sample at the rectangular shape
    // of a batch of its image alone, centred on a dark surround (RGB 26, 29, 35). So the part of each tile
    // that is not the surround is a centred rectangle whose size is rectBatchShape(training pad) of one of
    // the split's images; without rect every tile is filled to the edge.
    QTemporaryDir dir;
    std::string yaml;
    const auto split = synthTrain(dir, &yaml);
    std::set<std::pair<int, int>> allowed;
    for (const auto& r : split->images) {
      const cv::Size s = ywb::rectBatchShape({aspect(r)}, kImgsz, 32, ywb::rectBatchPad(true));
      allowed.insert({s.width, s.height});
    }
    ywb::PreviewRenderer renderer(yaml);
    ywb::PreviewOptions o;
    o.imgsz = kImgsz;
    o.count = 4;
    o.seed = 5;
    for (bool rect : {true, false}) {
      o.rect = rect;
      const ywb::RgbImage img = renderer.render(o);
      QCOMPARE(img.width, 2 * kImgsz);
      int non_square = 0;
      for (int t = 0; t < 4; ++t) {
        int x0 = kImgsz, y0 = kImgsz, x1 = -1, y1 = -1;
        for (int y = 0; y < kImgsz; ++y) {
          for (int x = 0; x < kImgsz; ++x) {
            const uint8_t* p =
                &img.rgb[(size_t((t / 2) * kImgsz + y) * size_t(img.width) + size_t((t % 2) * kImgsz + x)) *
                         3];
            if (p[0] == 26 && p[1] == 29 && p[2] == 35) continue;
            x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
          }
        }
        const int w = x1 - x0 + 1, h = y1 - y0 + 1;
        const QString at =
            QString("rect %1 tile %2: %3x%4 at %5,%6").arg(rect).arg(t).arg(w).arg(h).arg(x0).arg(y0);
        if (!rect) {
          QVERIFY2(w == kImgsz && h == kImgsz, qPrintable(at));
          continue;
        }
        QVERIFY2(allowed.count({w, h}) && x0 == (kImgsz - w) / 2 && y0 == (kImgsz - h) / 2, qPrintable(at));
        non_square += w != h;
      }
      if (rect) QVERIFY(non_square >= 1);
    }
  }
};

QTEST_GUILESS_MAIN(TestRectTrain)
#include "test_rect_train.moc"
