// The bgr augmentation (Ultralytics' `bgr=p`: a training sample reaches the model as B, G, R with
// probability p): what the model receives, how often, that nothing else about the sample changes, and the
// replay of Ultralytics' own test of it (Format's U(0, 1) draw).
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "data/dataset_scanner.h"
#include "data/image_source.h"
#include "data/loader.h"
#include "data/recent_images.h"
#include "data/sample_builder.h"
#include "data/sampler.h"
#include "data/ultralytics_draws.h"
#include "support/tiny_run.h"
#include "ywb/augment.h"

namespace {

// The sample as the model receives it: collated into a 3 x h x w tensor, as the loader does.
at::Tensor collated(const ywb::Sample& s) {
  at::Tensor t = at::empty({3, s.image.rows, s.image.cols}, at::kByte);
  ywb::collateImage(s.image, s.rgb, t);
  return t;
}

}  // namespace

class TestBgrAugment : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void modelReceivesTheChannelsReversed() {
    // Ultralytics keeps the image B, G, R when U(0, 1) <= bgr and reverses it to R, G, B otherwise; nothing
    // else of the sample depends on that test. So with bgr=1 every sample must be the bgr=0 sample of the
    // same seed with its three channel planes in reverse order, and the same boxes: with HSV (whose tables
    // turn the image into R, G, B) and without it (the collate reverses a B, G, R image), with Mosaic and
    // without, and on a rect=true batch shape.
    QTemporaryDir dir;
    const std::string yaml = ywb::test::tinyDataset(dir.path().toStdString(), {12, 4, 96});
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
    auto source = std::make_shared<ywb::ImageSource>(split, 96);
    for (bool hsv : {true, false}) {
      ywb::AugmentParams off;  // Ultralytics' defaults: bgr 0
      if (!hsv) off.hsv_h = off.hsv_s = off.hsv_v = 0;
      ywb::AugmentParams on = off;
      on.bgr = 1.0;
      const ywb::SampleBuilder a(source, true, off), b(source, true, on);
      for (uint64_t seed = 0; seed < 12; ++seed) {
        const bool multi = seed % 2 == 0;
        const cv::Size shape = seed % 3 == 0 ? cv::Size(96, 64) : cv::Size();
        const ywb::Sample x = a.build(size_t(seed), seed, multi, shape),
                          y = b.build(size_t(seed), seed, multi, shape);
        const QString at = QString("hsv %1 seed %2").arg(hsv).arg(seed);
        QVERIFY2(collated(y).equal(collated(x).flip({0})), qPrintable(at));
        QVERIFY2(!collated(x).equal(collated(x).flip({0})), qPrintable(at));  // the images are not grey
        QCOMPARE(y.boxes.size(), x.boxes.size());
        for (size_t k = 0; k < x.boxes.size(); ++k)
          QVERIFY2(y.boxes[k].x1 == x.boxes[k].x1 && y.boxes[k].y2 == x.boxes[k].y2, qPrintable(at));
      }
      // A replay of Ultralytics' draws swaps as its BGR test says (and bgr itself no longer decides).
      const ywb::UltralyticsLoaderReplay replay = ywb::ultralyticsLoaderReplay(12, 0, -1);
      ywb::UltralyticsStreamOptions o;
      o.workers = 0, o.batch = 4, o.buffer = ywb::RecentImages::capacityFor(12, 4), o.imgsz = 96;
      ywb::SampleDraws kept = ywb::ultralyticsDraws(replay, 0, o, off)[0];
      QVERIFY(!kept.bgr);
      ywb::SampleDraws swapped = kept;
      swapped.bgr = true;
      const size_t first = replay.orders[0][0];
      QVERIFY(collated(a.build(first, 1, true, {}, {}, &swapped))
                  .equal(collated(a.build(first, 1, true, {}, {}, &kept)).flip({0})));
      // Validation never swaps (Ultralytics passes bgr 0 to a loader that does not augment).
      const ywb::SampleBuilder val_off(source, false, off), val_on(source, false, on);
      QVERIFY(collated(val_on.build(3, 5, false)).equal(collated(val_off.build(3, 5, false))));
    }
  }

  void swapsAtItsProbability() {
    // bgr=0.3 over 600 samples: the swapped share is binomial (sd sqrt(0.3 x 0.7 / 600) = 0.019), so it lies
    // within 0.3 +/- 0.08 (over 4 sd); a sample is swapped when its collated planes are the bgr=0 sample's
    // reversed, and otherwise equal to it.
    QTemporaryDir dir;
    const std::string yaml = ywb::test::tinyDataset(dir.path().toStdString(), {8, 4, 64});
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
    auto source = std::make_shared<ywb::ImageSource>(split, 64);
    ywb::AugmentParams off, some;
    some.bgr = 0.3;
    const ywb::SampleBuilder a(source, true, off), b(source, true, some);
    int swapped = 0;
    const int n = 600;
    for (int i = 0; i < n; ++i) {
      const uint64_t seed = uint64_t(i) * 7919 + 1;
      const at::Tensor x = collated(a.build(size_t(i % 8), seed, false)),
                       y = collated(b.build(size_t(i % 8), seed, false));
      const bool reversed = y.equal(x.flip({0}));
      QVERIFY(reversed || y.equal(x));
      swapped += reversed;
    }
    QVERIFY2(std::abs(double(swapped) / n - 0.3) < 0.08, qPrintable(QString::number(swapped)));
  }

  void replaysUltralyticsTest() {
    // The replay of Ultralytics' loader draws the BGR test each sample whatever bgr is, so bgr moves no
    // other draw; the test is U <= bgr on one number per sample, so a sample kept B, G, R at bgr 0.3 is
    // kept so at 0.6 too, and the shares follow the probabilities (binomial, 512 samples: sd <= 0.022).
    const ywb::UltralyticsLoaderReplay replay = ywb::ultralyticsLoaderReplay(64, 7, -1);
    ywb::UltralyticsStreamOptions o;
    o.workers = 2, o.batch = 8, o.buffer = ywb::RecentImages::capacityFor(64, 8), o.imgsz = 64;
    ywb::AugmentParams p0, p3, p6, p1;
    p3.bgr = 0.3, p6.bgr = 0.6, p1.bgr = 1.0;
    int at3 = 0, at6 = 0, total = 0;
    for (int epoch = 0; epoch < 8; ++epoch) {
      const auto d0 = ywb::ultralyticsDraws(replay, epoch, o, p0),
                 d3 = ywb::ultralyticsDraws(replay, epoch, o, p3),
                 d6 = ywb::ultralyticsDraws(replay, epoch, o, p6),
                 d1 = ywb::ultralyticsDraws(replay, epoch, o, p1);
      QCOMPARE(d3.size(), d0.size());
      for (size_t i = 0; i < d0.size(); ++i) {
        QVERIFY(!d0[i].bgr && d1[i].bgr);
        QVERIFY(!d3[i].bgr || d6[i].bgr);
        QCOMPARE(d3[i].perspective.scale, d0[i].perspective.scale);
        QCOMPARE(d3[i].flip_lr, d0[i].flip_lr);
        QCOMPARE(d3[i].hsv[2], d0[i].hsv[2]);
        if (i + 1 < d0.size()) QCOMPARE(d6[i + 1].perspective.translate_x, d0[i + 1].perspective.translate_x);
        at3 += d3[i].bgr, at6 += d6[i].bgr, ++total;
      }
    }
    QCOMPARE(total, 512);
    QVERIFY2(std::abs(double(at3) / total - 0.3) < 0.09, qPrintable(QString::number(at3)));
    QVERIFY2(std::abs(double(at6) / total - 0.6) < 0.09, qPrintable(QString::number(at6)));
  }
};

QTEST_GUILESS_MAIN(TestBgrAugment)
#include "test_bgr_augment.moc"
