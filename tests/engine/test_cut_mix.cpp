// CutMix (cutmix=p): the region rule, the choice of a box-free region, the paste with its 10% box rule worked
// out by hand, and the whole sample builder on the shared shapes set, where a CutMix sample must equal the
// same seed's sample without CutMix everywhere outside one rectangle that touches none of its boxes.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/rng.h"
#include "data/cut_mix.h"
#include "data/dataset_scanner.h"
#include "data/sample_builder.h"

namespace fs = std::filesystem;

namespace {

bool overlaps(const ywb::PixelBox& b, const cv::Rect& r) {
  return std::min(b.x2, float(r.x + r.width)) > std::max(b.x1, float(r.x)) &&
         std::min(b.y2, float(r.y + r.height)) > std::max(b.y1, float(r.y));
}

}  // namespace

class TestCutMix : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void regionsFollowTheRule() {
    // sides int(W r) and int(H r) with one r, halved each way (integer): a region clear of the borders is
    // 2 * (int(W r) / 2) wide, so even, and its sides keep the image's proportions within the rounding.
    const cv::Size size(200, 100);
    ywb::Rng rng(11);
    int inner = 0;
    double share = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const cv::Rect r = ywb::drawCutMixArea(size, rng);
      QVERIFY(r.x >= 0 && r.y >= 0 && r.width >= 0 && r.height >= 0 && r.br().x <= 200 && r.br().y <= 100);
      if (r.x > 0 && r.y > 0 && r.br().x < 200 && r.br().y < 100) {
        ++inner;
        QVERIFY(r.width % 2 == 0 && r.height % 2 == 0);
        QVERIFY2(std::abs(r.width / 200.0 - r.height / 100.0) <= 0.021,
                 qPrintable(QString("%1 x %2").arg(r.width).arg(r.height)));
        share += double(r.area()) / size.area();
      }
    }
    // Regions clear of the borders are the small ones: 1 - lam = r^2 is uniform, and a region of side share r
    // stays inside for a share (1 - r)^2 of the centres, so E[r^2 | inside] = int r^2 (1-r)^2 / int (1-r)^2
    // over r^2 ~ U(0, 1), i.e. with u = r^2, du = 2r dr: int_0^1 r^2 (1-r)^2 2r dr / int_0^1 (1-r)^2 2r dr =
    // (2/60) / (2/12) = 0.2 (the integer halving trims a little).
    QVERIFY(inner > n / 10);
    QVERIFY2(std::abs(share / inner - 0.2) < 0.02, qPrintable(QString::number(share / inner)));
  }

  void chosenRegionTouchesNoBox() {
    const cv::Size size(128, 128);
    // The whole image under one box: never a region (every region of at least a pixel touches it).
    const std::vector<ywb::PixelBox> full = {{0, 0, 0, 128, 128}};
    // A box over the left half: every region chosen lies in the right half.
    const std::vector<ywb::PixelBox> left = {{1, 0, 0, 64, 128}};
    int chosen = 0;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      ywb::Rng a(seed), b(seed + 1000), c(seed + 2000);
      const auto none = ywb::chooseCutMixArea(size, full, a);
      QVERIFY(!none || none->empty());
      const auto r = ywb::chooseCutMixArea(size, left, b);
      if (r && !r->empty()) {
        ++chosen;
        QVERIFY2(r->x >= 64, qPrintable(QString("region at x %1").arg(r->x)));
      }
      QVERIFY(ywb::chooseCutMixArea(size, {}, c).has_value());  // no boxes: the first region always fits
    }
    QVERIFY(chosen > 100);
  }

  void pasteKeepsBoxesMostlyInside() {
    ywb::Sample s, other;
    s.image = cv::Mat(100, 100, CV_8UC3, cv::Scalar::all(0));
    s.boxes = {{0, 70, 70, 90, 90}};
    other.image = cv::Mat(100, 100, CV_8UC3, cv::Scalar::all(255));
    // The region (20, 20)-(60, 60). Box A lies inside; B (10..30 x 20..40, area 400) has 10 x 20 = 200 inside
    // (50%); C (55..75 x 20..40) has 5 x 20 = 100 of 400 inside (25%); D (57..77 x 20..60, 800) 3 x 40 = 120
    // (15%, kept: the rule is at least 0.1); E (59..79 x 20..60) 40 of 800 (5%, dropped).
    other.boxes = {{1, 30, 30, 40, 40},
                   {2, 10, 20, 30, 40},
                   {3, 55, 20, 75, 40},
                   {4, 57, 20, 77, 60},
                   {5, 59, 20, 79, 60}};
    const cv::Rect area(20, 20, 40, 40);
    QCOMPARE(ywb::pasteCutMix(s, other, area), size_t(4));
    QCOMPARE(s.boxes.size(), size_t(5));
    const auto same = [](const ywb::PixelBox& b, int cls, float x1, float y1, float x2, float y2) {
      return b.cls == cls && b.x1 == x1 && b.y1 == y1 && b.x2 == x2 && b.y2 == y2;
    };
    QVERIFY(same(s.boxes[0], 0, 70, 70, 90, 90));  // the sample's own box, untouched
    QVERIFY(same(s.boxes[1], 1, 30, 30, 40, 40));  // inside: as it is
    QVERIFY(same(s.boxes[2], 2, 20, 20, 30, 40));  // clipped to the region's left edge
    QVERIFY(same(s.boxes[3], 3, 55, 20, 60, 40));  // clipped to its right edge
    QVERIFY(same(s.boxes[4], 4, 57, 20, 60, 60));
    // The pixels: the region white, everything else as it was.
    for (int y = 0; y < 100; ++y)
      for (int x = 0; x < 100; ++x)
        QCOMPARE(int(s.image.at<cv::Vec3b>(y, x)[1]), area.contains({x, y}) ? 255 : 0);
  }

  void builderChangesOnlyTheRegion() {
    const std::string yaml = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/data.yaml";
    if (!fs::exists(yaml)) QSKIP("the shared fixtures are not present");
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
    auto source = std::make_shared<ywb::ImageSource>(split, 128, false);
    ywb::AugmentParams plain;
    ywb::AugmentParams cut = plain;
    cut.cutmix = 1.0;
    const ywb::SampleBuilder a(source, true, plain), b(source, true, cut);
    int pasted = 0, same = 0;
    for (int i = 0; i < 200; ++i) {
      const uint64_t seed = uint64_t(i) * 104729 + 7;
      const ywb::Sample x = a.build(size_t(i) % split->images.size(), seed, true),
                        y = b.build(size_t(i) % split->images.size(), seed, true);
      // The geometry, MixUp, HSV and flips draw from streams CutMix leaves alone: what differs is one
      // rectangle, and the boxes before it are the sample's own.
      QVERIFY(y.boxes.size() >= x.boxes.size());
      for (size_t k = 0; k < x.boxes.size(); ++k) QVERIFY(y.boxes[k].x1 == x.boxes[k].x1);
      // a pixel differs when any of its channels does
      cv::Mat ne, diff;
      cv::compare(x.image, y.image, ne, cv::CMP_NE);
      std::vector<cv::Mat> ch;
      cv::split(ne, ch);
      cv::bitwise_or(ch[0], ch[1], diff);
      cv::bitwise_or(diff, ch[2], diff);
      if (cv::countNonZero(diff) == 0) {
        ++same;  // no region was free of boxes (or the partner's pixels there were the sample's)
        continue;
      }
      ++pasted;
      std::vector<cv::Point> at;
      cv::findNonZero(diff, at);
      const cv::Rect changed = cv::boundingRect(at);  // inside the pasted region
      for (const auto& box : x.boxes) {
        QVERIFY2(!overlaps(box, changed),
                 qPrintable(QString("sample %1: the pasted part covers a box").arg(i)));
        // the pasted boxes are clipped to the region, which touches none of the sample's own boxes
        for (size_t k = x.boxes.size(); k < y.boxes.size(); ++k) {
          const auto& p = y.boxes[k];
          const cv::Rect pr(cv::Point(int(std::ceil(p.x1)), int(std::ceil(p.y1))),
                            cv::Point(int(std::floor(p.x2)), int(std::floor(p.y2))));
          QVERIFY(pr.empty() || !overlaps(box, pr));
        }
      }
    }
    qInfo("%d of 200 samples pasted", pasted);
    // about a quarter paste: in a Mosaic of shapes most regions touch a box
    QVERIFY2(pasted > 25, qPrintable(QString("%1 of 200 samples pasted").arg(pasted)));
    QVERIFY(same + pasted == 200);
    // Same seed, same sample: CutMix is drawn from the seed alone.
    const ywb::Sample y1 = b.build(3, 99, true), y2 = b.build(3, 99, true);
    QCOMPARE(cv::norm(y1.image, y2.image, cv::NORM_INF), 0.0);
    // close_mosaic (multi_image false) turns it off: the plain sample.
    const ywb::Sample closed = b.build(3, 99, false), plain_closed = a.build(3, 99, false);
    QCOMPARE(cv::norm(closed.image, plain_closed.image, cv::NORM_INF), 0.0);
    // A sample holds up to one more partner's boxes (target capacity): 4 x (1 + 1) with Mosaic.
    QCOMPARE(ywb::SampleBuilder::maxImagesPerSample(cut), int64_t(8));
    cut.mixup = 0.5;
    QCOMPARE(ywb::SampleBuilder::maxImagesPerSample(cut), int64_t(12));
  }
};

QTEST_GUILESS_MAIN(TestCutMix)
#include "test_cut_mix.moc"
