// Box math of every transform against hand-derived cases (letterbox, perspective matrices, box candidates,
// flips, HSV tables, Mosaic placement) and an end-to-end invariant of the Mosaic + affine sample builder.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/rng.h"
#include "data/color_flip.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/letterbox.h"
#include "data/random_perspective.h"
#include "data/recent_images.h"
#include "data/sample_builder.h"

namespace fs = std::filesystem;

namespace {

bool near(double a, double b, double eps = 1e-3) {
  return std::abs(a - b) < eps;
}

bool boxIs(const ywb::PixelBox& b, double x1, double y1, double x2, double y2, double eps = 1e-3) {
  return near(b.x1, x1, eps) && near(b.y1, y1, eps) && near(b.x2, x2, eps) && near(b.y2, y2, eps);
}

ywb::PixelBox box(float x1, float y1, float x2, float y2, int cls = 0) {
  return {cls, x1, y1, x2, y2};
}

// Solid colour per class id (BGR), far apart so JPEG rounding cannot confuse them.
cv::Vec3b colourOf(int cls) {
  static const cv::Vec3b c[] = {{200, 30, 30},  {30, 200, 30},  {30, 30, 200},
                                {200, 200, 30}, {200, 30, 200}, {30, 200, 200}};
  return c[cls % 6];
}

// Six one-colour images of different sizes under `root`, each with one box covering it all, class = image
// number = colour id; returns the scanned train split.
std::shared_ptr<ywb::ScannedSplit> colourSplit(const std::string& root) {
  fs::create_directories(root + "/images/train");
  fs::create_directories(root + "/labels/train");
  fs::create_directories(root + "/images/val");
  const cv::Size sizes[] = {{320, 240}, {200, 320}, {320, 320}, {160, 100}, {640, 360}, {300, 500}};
  for (int i = 0; i < 6; ++i) {
    const cv::Mat img(sizes[i], CV_8UC3, cv::Scalar(colourOf(i)[0], colourOf(i)[1], colourOf(i)[2]));
    const std::string stem = "/img" + std::to_string(i);
    ywb::writeFileAtomic(root + "/images/train" + stem + ".jpg", ywb::encodeJpeg(img, 98));
    ywb::writeFileAtomic(root + "/images/val" + stem + ".jpg", ywb::encodeJpeg(img, 98));
    ywb::writeFileAtomic(root + "/labels/train" + stem + ".txt", std::to_string(i) + " 0.5 0.5 1 1\n");
  }
  ywb::writeFileAtomic(root + "/data.yaml",
                       "train: images/train\nval: images/val\nnames: [a, b, c, d, e, f]\n");
  auto split =
      std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(root + "/data.yaml"), "train"));
  if (split->images.size() != 6) throw std::runtime_error("colourSplit: expected 6 images");
  return split;
}

}  // namespace

class TestDataTransforms : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void letterboxGeometry() {
    // 640x480 into 640x640, no upscaling: r = min(640/480, 640/640) = 1; 160 px of height padding split
    // 80/80.
    auto li = ywb::letterboxGeometry({640, 480}, {640, 640}, false, false);
    QCOMPARE(li.ratio, 1.0);
    QCOMPARE(li.left, 0);
    QCOMPARE(li.top, 80);
    QCOMPARE(li.out, cv::Size(640, 640));
    // 500x300 into 320x320: r = min(320/300, 320/500) = 0.64 -> 320x192, 128 px padding -> top 64.
    li = ywb::letterboxGeometry({500, 300}, {320, 320}, false, true);
    QCOMPARE(li.ratio, 0.64);
    QCOMPARE(li.top, 64);
    QCOMPARE(li.out, cv::Size(320, 320));
    // auto mode pads only to a stride multiple: 160 mod 32 = 0 -> no padding, output 640x480.
    li = ywb::letterboxGeometry({640, 480}, {640, 640}, true, false);
    QCOMPARE(li.out, cv::Size(640, 480));
    QCOMPARE(li.top, 0);
    // Odd padding: 1 px split as round(0.5 - 0.1) = 0 on top, round(0.5 + 0.1) = 1 below.
    li = ywb::letterboxGeometry({100, 99}, {100, 100}, false, false);
    QCOMPARE(li.top, 0);
    QCOMPARE(li.out, cv::Size(100, 100));
    // scaleup=false keeps small images at r = 1: 100x50 into 200x200 -> left 50, top round(74.9) = 75.
    li = ywb::letterboxGeometry({100, 50}, {200, 200}, false, false);
    QCOMPARE(li.ratio, 1.0);
    QCOMPARE(li.left, 50);
    QCOMPARE(li.top, 75);
    // Pixels: content at (left, top), pad value 114 around it.
    const cv::Mat img(50, 100, CV_8UC3, cv::Scalar(1, 2, 3));
    ywb::LetterboxInfo info;
    const cv::Mat out = ywb::letterbox(img, {200, 200}, false, false, 32, &info);
    QCOMPARE(out.at<cv::Vec3b>(75, 50), cv::Vec3b(1, 2, 3));
    QCOMPARE(out.at<cv::Vec3b>(124, 149), cv::Vec3b(1, 2, 3));
    QCOMPARE(out.at<cv::Vec3b>(74, 50), cv::Vec3b(114, 114, 114));
    QCOMPARE(out.at<cv::Vec3b>(75, 150), cv::Vec3b(114, 114, 114));
  }

  void perspectiveMatrixWithoutRandomRanges() {
    // All ranges 0: M = T * C = shift by (0.5 * out - in / 2). For the 1280 mosaic canvas into 640: -320.
    ywb::AugmentParams hyp = ywb::AugmentParams::none();
    ywb::Rng rng(1);
    double s = 0;
    const cv::Matx33d m = ywb::drawPerspective(hyp, rng, {1280, 1280}, {640, 640}, &s);
    QCOMPARE(s, 1.0);
    QCOMPARE(m, cv::Matx33d(1, 0, -320, 0, 1, -320, 0, 0, 1));
    // translate=0.1 moves the centre by at most 0.1 * 640 = 64 px; scale=0.5 draws s in [0.5, 1.5].
    hyp.translate = 0.1;
    hyp.scale = 0.5;
    for (int i = 0; i < 50; ++i) {
      const cv::Matx33d r = ywb::drawPerspective(hyp, rng, {1280, 1280}, {640, 640}, &s);
      QVERIFY(s >= 0.5 && s < 1.5);
      // The canvas centre (640, 640) lands at T = (0.5 +/- 0.1) * 640.
      const double cx = r(0, 0) * 640 + r(0, 1) * 640 + r(0, 2);
      QVERIFY(cx >= 256 - 1e-9 && cx <= 384 + 1e-9);
      QVERIFY(!ywb::isProjective(r));
    }
  }

  void transformBoxesKnownMatrices() {
    const std::vector<ywb::PixelBox> b = {box(10, 20, 30, 60, 7)};
    // Scale 2 then shift (5, 5): (10,20)-(30,60) -> (25,45)-(65,125).
    auto r = ywb::transformBoxes({2, 0, 5, 0, 2, 5, 0, 0, 1}, b, {200, 200});
    QVERIFY(boxIs(r[0], 25, 45, 65, 125));
    QCOMPARE(r[0].cls, 7);
    // 90 degree rotation x' = -y + 100, y' = x: x' in [100-60, 100-20] = [40, 80], y' in [10, 30].
    r = ywb::transformBoxes({0, -1, 100, 1, 0, 0, 0, 0, 1}, b, {200, 200});
    QVERIFY(boxIs(r[0], 40, 10, 80, 30));
    // 45 degrees of the square (0,0)-(10,10), shifted by 20: corners at x = 20 +/- 7.071, y from 20
    // to 34.142.
    const double c = std::cos(M_PI / 4), sn = std::sin(M_PI / 4);
    r = ywb::transformBoxes({c, -sn, 20, sn, c, 20, 0, 0, 1}, {box(0, 0, 10, 10)}, {100, 100});
    QVERIFY(boxIs(r[0], 20 - 7.0711, 20, 20 + 7.0711, 34.1421));
    // Clipping to the output: (40,40)-(70,70) in a 50x50 image -> (40,40)-(50,50).
    r = ywb::transformBoxes(cv::Matx33d::eye(), {box(40, 40, 70, 70)}, {50, 50});
    QVERIFY(boxIs(r[0], 40, 40, 50, 50));
    // Perspective divide: m(2,0) = 0.001 -> corner (100, 0) has z = 1.1, x = 100 / 1.1 = 90.909.
    r = ywb::transformBoxes({1, 0, 0, 0, 1, 0, 0.001, 0, 1}, {box(0, 0, 100, 10)}, {200, 200});
    QVERIFY(boxIs(r[0], 0, 0, 90.909, 10));
  }

  // A scale-and-shift warp as a crop and a resize (cropResizeFor): the snapped matrix stays within half a
  // source pixel of the drawn one and fills the output exactly; rotation, shear, mirroring and perspective
  // are refused; and the resized image is the warp its matrix states. That last check compares with
  // cv::warpAffine of the same matrix in OpenCV's pixel-index convention (a pixel's centre at i, here
  // i + 0.5 in the continuous coordinates of the boxes: dst = s * src + t + (s - 1) / 2), on a smooth
  // image, where two bilinear samplers can differ only by their rounding.
  void cropResizeIsTheWarpItsMatrixSays() {
    const cv::Size out(320, 320);
    ywb::Rng rng(11);
    ywb::AugmentParams hyp;  // defaults: scale 0.5, translate 0.1, no rotation, shear or perspective
    cv::Mat src(640, 640, CV_8UC3);
    for (int y = 0; y < src.rows; ++y) {
      for (int x = 0; x < src.cols; ++x) {
        src.at<cv::Vec3b>(y, x) = cv::Vec3b(uint8_t(128 + 100 * std::sin(x / 23.0)),
                                            uint8_t(128 + 100 * std::cos(y / 31.0)), uint8_t((x + y) / 6));
      }
    }
    for (int trial = 0; trial < 40; ++trial) {
      const ywb::PerspectiveDraws d = ywb::drawPerspectiveParams(hyp, rng);
      const cv::Matx33d m = ywb::perspectiveMatrix(d, src.size(), out);
      ywb::CropResize cr;
      QVERIFY(ywb::cropResizeFor(m, out, 4 * out.width, &cr));
      // Fills the output exactly, origin within half a source pixel, scale within half a pixel of the crop.
      QCOMPARE(cr.crop.width * cr.m(0, 0), double(out.width));
      QCOMPARE(cr.crop.height * cr.m(1, 1), double(out.height));
      QVERIFY(std::abs(-m(0, 2) / m(0, 0) - cr.crop.x) <= 0.5 &&
              std::abs(-m(1, 2) / m(1, 1) - cr.crop.y) <= 0.5);
      QVERIFY(std::abs(out.width / m(0, 0) - cr.crop.width) <= 0.5);
      QVERIFY(std::abs(cr.scale - d.scale) <= 0.5 * d.scale / cr.crop.width + 1e-12);
      const cv::Mat got = ywb::resizeCrop(ywb::cropPadded(src, cr.crop), out);
      const double s = cr.m(0, 0), tx = cr.m(0, 2), ty = cr.m(1, 2);
      const cv::Matx33d index(s, 0, tx + (s - 1) / 2, 0, s, ty + (s - 1) / 2, 0, 0, 1);
      const cv::Mat want = ywb::warpImage(src, index, out);
      // Compare where both samplers read only source pixels (2 px away from the source's edges).
      int compared = 0, worst = 0;
      for (int y = 0; y < out.height; ++y) {
        for (int x = 0; x < out.width; ++x) {
          const double sx = (x - index(0, 2)) / s, sy = (y - index(1, 2)) / s;
          if (sx < 2 || sy < 2 || sx > src.cols - 3 || sy > src.rows - 3) continue;
          for (int c = 0; c < 3; ++c)
            worst =
                std::max(worst, std::abs(int(got.at<cv::Vec3b>(y, x)[c]) - int(want.at<cv::Vec3b>(y, x)[c])));
          ++compared;
        }
      }
      QVERIFY(compared > out.area() / 4);
      QVERIFY2(worst <= 1, qPrintable(QString("trial %1: largest difference %2").arg(trial).arg(worst)));
    }
    // Past the source, the crop is padded with 114 (the warp's border value).
    const cv::Mat padded = ywb::cropPadded(src, cv::Rect(-10, -10, 20, 20));
    QCOMPARE(padded.at<cv::Vec3b>(0, 0), cv::Vec3b(114, 114, 114));
    QCOMPARE(padded.at<cv::Vec3b>(15, 15), src.at<cv::Vec3b>(5, 5));
    ywb::CropResize cr;
    const cv::Matx33d shift(0.8, 0, 10, 0, 0.8, -5, 0, 0, 1);
    QVERIFY(ywb::cropResizeFor(shift, out, 4 * out.width, &cr));
    QVERIFY(!ywb::cropResizeFor(shift, out, 300, &cr));  // the 400 px crop is larger than allowed
    for (const cv::Matx33d& refused :
         {cv::Matx33d(0.8, 0.1, 0, 0, 0.8, 0, 0, 0, 1), cv::Matx33d(0.8, 0, 0, -0.1, 0.8, 0, 0, 0, 1),
          cv::Matx33d(-0.8, 0, 320, 0, 0.8, 0, 0, 0, 1), cv::Matx33d(0.8, 0, 0, 0, 0.8, 0, 1e-4, 0, 1)})
      QVERIFY(!ywb::cropResizeFor(refused, out, 4 * out.width, &cr));
  }

  void boxCandidateRule() {
    const auto before = box(0, 0, 10, 10);
    QVERIFY(ywb::boxCandidate(before, box(0, 0, 10, 10), 1));
    QVERIFY(!ywb::boxCandidate(before, box(0, 0, 2, 10), 1));  // width must exceed 2 px
    QVERIFY(!ywb::boxCandidate(before, box(0, 0, 3, 3), 1));   // area 9 / 100 = 0.09 <= 0.1
    QVERIFY(ywb::boxCandidate(before, box(0, 0, 4, 4), 1));    // area 16 / 100 = 0.16
    QVERIFY(!ywb::boxCandidate(before, box(0, 0, 6, 6), 2));   // scaled before-box area 400: 36 / 400 = 0.09
    QVERIFY(!ywb::boxCandidate(box(0, 0, 400, 4), box(0, 0, 350, 3), 1));  // aspect 350 / 3 > 100
  }

  void flipsMirrorBoxes() {
    cv::Mat img(2, 4, CV_8UC3, cv::Scalar::all(0));
    img.at<cv::Vec3b>(0, 0) = cv::Vec3b(9, 9, 9);
    std::vector<ywb::PixelBox> b = {box(0, 0, 1, 2)};
    ywb::flipHorizontal(img, b);  // x -> 4 - x: [0, 1] -> [3, 4]
    QVERIFY(boxIs(b[0], 3, 0, 4, 2));
    QCOMPARE(img.at<cv::Vec3b>(0, 3), cv::Vec3b(9, 9, 9));
    b = {box(1, 0, 2, 1)};
    ywb::flipVertical(img, b);  // y -> 2 - y: [0, 1] -> [1, 2]
    QVERIFY(boxIs(b[0], 1, 1, 2, 2));
    QCOMPARE(img.at<cv::Vec3b>(1, 3), cv::Vec3b(9, 9, 9));
  }

  void hsvTables() {
    const cv::Mat id = ywb::hsvLut(1, 1, 1);
    for (int x = 0; x < 256; ++x) {
      // Hue wraps at 180 (OpenCV 8-bit hue range): identity below 180, x - 180 above.
      QCOMPARE(int(id.at<cv::Vec3b>(0, x)[0]), x % 180);
      QCOMPARE(int(id.at<cv::Vec3b>(0, x)[1]), x);
    }
    const cv::Mat l = ywb::hsvLut(1.5, 2, 0.5);
    // Hue is shifted by (1.5 - 1) * 180 = 90 (Ultralytics >= 8.3.79): 150 + 90 = 240 mod 180 = 60; the
    // scaling rule of older versions gave 225 mod 180 = 45.
    QCOMPARE(int(l.at<cv::Vec3b>(0, 150)[0]), 60);
    // A shift of -0.015 * 180 = -2.7: 1 - 2.7 = -1.7 wraps to 178.3, truncated to 178.
    QCOMPARE(int(ywb::hsvLut(0.985, 1, 1).at<cv::Vec3b>(0, 1)[0]), 178);
    QCOMPARE(int(l.at<cv::Vec3b>(0, 200)[1]), 255);  // 400 clipped
    QCOMPARE(int(l.at<cv::Vec3b>(0, 255)[2]), 127);  // 127.5 truncated
  }

  void mosaicPlacementHandDerived() {
    // Canvas 640 (imgsz 320), centre (300, 200).
    cv::Rect a, b;
    ywb::mosaicPlacement(0, 300, 200, {200, 100}, 640, &a, &b);  // top-left tile ends at the centre
    QCOMPARE(a, cv::Rect(100, 100, 200, 100));
    QCOMPARE(b, cv::Rect(0, 0, 200, 100));
    ywb::mosaicPlacement(1, 300, 200, {400, 300}, 640, &a, &b);  // top-right: cut at the canvas top and right
    QCOMPARE(a, cv::Rect(300, 0, 340, 200));
    QCOMPARE(b, cv::Rect(0, 100, 340, 200));
    ywb::mosaicPlacement(2, 300, 200, {200, 500}, 640, &a, &b);  // bottom-left: cut at the canvas bottom
    QCOMPARE(a, cv::Rect(100, 200, 200, 440));
    QCOMPARE(b, cv::Rect(0, 0, 200, 440));
    ywb::mosaicPlacement(3, 300, 200, {500, 500}, 640, &a, &b);
    QCOMPARE(a, cv::Rect(300, 200, 340, 440));
    QCOMPARE(b, cv::Rect(0, 0, 340, 440));
    ywb::mosaicPlacement(0, 300, 200, {400, 300}, 640, &a,
                         &b);  // larger than the space left: shows its corner
    QCOMPARE(a, cv::Rect(0, 0, 300, 200));
    QCOMPARE(b, cv::Rect(100, 100, 300, 200));
  }

  // Each image is one solid colour with one box covering it all, class = colour id. Whatever Mosaic, scale,
  // translation and flips do, every output box must enclose its own colour: this checks that the image warp
  // (assembled from only the visible part of the canvas) and the box transform agree.
  void mosaicImageAndBoxesAgree() {
    QTemporaryDir dir;
    auto source = std::make_shared<ywb::ImageSource>(colourSplit(dir.path().toStdString()), 320);
    for (double mosaic : {1.0, 0.0}) {
      ywb::AugmentParams hyp;
      hyp.hsv_h = hyp.hsv_s = hyp.hsv_v = 0;  // keep colours exact
      hyp.flipud = 0.5;
      hyp.mosaic = mosaic;
      const ywb::SampleBuilder builder(source, true, hyp);
      int checked = 0;
      for (uint64_t seed = 0; seed < 40; ++seed) {
        const ywb::Sample s = builder.build(size_t(seed % 6), seed, true);
        QCOMPARE(s.image.size(), cv::Size(320, 320));
        QCOMPARE(s.meta.mosaic, mosaic > 0);
        QVERIFY(!s.rgb);
        for (const auto& b : s.boxes) {
          QVERIFY(b.x1 >= 0 && b.y1 >= 0 && b.x2 <= 320 && b.y2 <= 320 && b.width() > 2 && b.height() > 2);
          // Interior points, 2 px inside the box edges (bilinear edges blend with the neighbour).
          for (const cv::Point2f& p : {cv::Point2f((b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2),
                                       cv::Point2f(b.x1 + 2, b.y1 + 2), cv::Point2f(b.x2 - 3, b.y2 - 3)}) {
            if (b.width() < 6 || b.height() < 6) continue;
            const cv::Vec3b got = s.image.at<cv::Vec3b>(int(p.y), int(p.x));
            const cv::Vec3b want = colourOf(b.cls);
            for (int c = 0; c < 3; ++c) {
              QVERIFY2(
                  std::abs(int(got[c]) - int(want[c])) <= 6,
                  qPrintable(QString("seed %1 class %2 at (%3,%4)").arg(seed).arg(b.cls).arg(p.x).arg(p.y)));
            }
            ++checked;
          }
        }
      }
      QVERIFY(checked > 100);
    }
  }

  // Ultralytics' buffer replayed by hand (docs/PARITY.md): capacity 4 keeps 3 images; an image still in the
  // buffer is not added again; the oldest leaves when a new one enters.
  void recentImagesReplayUltralyticsBuffer() {
    QCOMPARE(ywb::RecentImages::capacityFor(256, 16), size_t(128));  // min(256, 8 x 16, 1000)
    QCOMPARE(ywb::RecentImages::capacityFor(50, 16), size_t(50));
    QCOMPARE(ywb::RecentImages::capacityFor(100000, 256), size_t(1000));
    auto contents = [](const ywb::PartnerPool& p) { return std::vector<size_t>(p.data, p.data + p.size); };
    using V = std::vector<size_t>;
    ywb::RecentImages r(4);
    r.plan({}, {5, 6, 7, 8, 6, 9, 5});
    QCOMPARE(contents(r.window(0)), (V{5}));  // the first sample's partners are itself
    QCOMPARE(contents(r.window(1)), (V{5, 6}));
    QCOMPARE(contents(r.window(2)), (V{5, 6, 7}));
    QCOMPARE(contents(r.window(3)), (V{6, 7, 8}));  // 8 enters at 4 = capacity: 5 leaves
    QCOMPARE(contents(r.window(4)), (V{6, 7, 8}));  // 6 is still buffered: not added again
    QCOMPARE(contents(r.window(5)), (V{7, 8, 9}));
    QCOMPARE(contents(r.window(6)), (V{8, 9, 5}));  // 5 left at position 3: it enters again
    QVERIFY_THROWS_EXCEPTION(ywb::Error, r.window(7));
    // The previous epoch's order fills the buffer first: [1 2 3] then 4 enters and 1 leaves.
    r.plan({1, 2, 3}, {4, 2});
    QCOMPARE(contents(r.window(0)), (V{2, 3, 4}));
    QCOMPARE(contents(r.window(1)), (V{2, 3, 4}));
  }

  // Mosaic draws its three partners from the pool it is given (the loader passes the RecentImages window):
  // with the pool {4}, every box belongs to the sample's own image or to image 4 (class = image number).
  // Without a pool the partners range over the whole split, so other classes show up: the check can fail.
  void mosaicPartnersComeFromThePool() {
    QTemporaryDir dir;
    auto source = std::make_shared<ywb::ImageSource>(colourSplit(dir.path().toStdString()), 320);
    ywb::AugmentParams hyp;
    hyp.scale = 0;  // tiles keep their size, so each of the four shows in the 320 x 320 crop
    const ywb::SampleBuilder builder(source, true, hyp);
    const size_t four = 4;
    std::set<int> pooled, free;
    for (uint64_t seed = 0; seed < 30; ++seed) {
      for (const auto& b : builder.build(0, seed, true, {}, ywb::PartnerPool{&four, 1}).boxes)
        pooled.insert(b.cls);
      for (const auto& b : builder.build(0, seed, true).boxes) free.insert(b.cls);
    }
    QCOMPARE(pooled, (std::set<int>{0, 4}));
    QVERIFY(free.size() > 3);
  }

  // What the augmentation does to the boxes of a real dataset, against an independent model of Ultralytics'
  // published rules (tests/bench/ultralytics_label_geometry.py, NumPy only; its 200,000-sample figures for
  // the shared shapes/ set, whose images are 100..128 x 128 px, are quoted below): the number of boxes a
  // sample keeps and their mean size, with Mosaic and in the close_mosaic stage. Catches a wrong scale or
  // translation range, mosaic centre range, letterbox offset, clip or box-candidate threshold (each moves
  // these means by several sampling errors; the tolerances are about 4 of them, from the model's standard
  // deviations: boxes 4.49 / 2.24 per sample, widths 10.4 / 11.8 px per box).
  void labelGeometryMatchesUltralyticsRules() {
    const std::string yaml = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/data.yaml";
    if (!fs::exists(yaml)) QSKIP("the shared fixtures are not present");
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
    auto source = std::make_shared<ywb::ImageSource>(split, 128, false);
    const ywb::SampleBuilder builder(source, true, ywb::AugmentParams{});
    struct Expect {
      bool mosaic;
      double boxes, w, h, tol_boxes, tol_wh;
    };
    // {mosaic, the model's boxes per sample, mean w, mean h (its JSON output), tolerances for boxes and w/h}
    for (const Expect e :
         {Expect{true, 7.321, 17.831, 18.182, 0.2, 0.35}, Expect{false, 4.2918, 21.075, 21.595, 0.1, 0.4}}) {
      const int n = 8000;
      double boxes = 0, w = 0, h = 0;
      for (int i = 0; i < n; ++i) {
        const ywb::Sample s =
            builder.build(size_t(i) % split->images.size(), uint64_t(i) * 7919 + 1, e.mosaic);
        for (const auto& b : s.boxes) w += b.width(), h += b.height();
        boxes += double(s.boxes.size());
      }
      const QString what = e.mosaic ? "mosaic" : "close_mosaic";
      qInfo("%s: %.3f boxes per sample, mean %.3f x %.3f px", qPrintable(what), boxes / n, w / boxes,
            h / boxes);
      QVERIFY2(std::abs(boxes / n - e.boxes) < e.tol_boxes, qPrintable(what));
      QVERIFY2(std::abs(w / boxes - e.w) < e.tol_wh, qPrintable(what));
      QVERIFY2(std::abs(h / boxes - e.h) < e.tol_wh, qPrintable(what));
    }
  }

  void betaIsCentred() {
    // Beta(32, 32): mean 0.5, standard deviation sqrt(32*32 / (64^2 * 65)) = 0.062.
    ywb::Rng rng(3);
    double sum = 0, sq = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
      const double x = ywb::betaSymmetric(rng, 32);
      QVERIFY(x > 0 && x < 1);
      sum += x;
      sq += x * x;
    }
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    QVERIFY(std::abs(mean - 0.5) < 0.005);
    QVERIFY(std::abs(sd - 0.062) < 0.005);
  }
};

QTEST_GUILESS_MAIN(TestDataTransforms)
#include "test_data_transforms.moc"
