// BoT-SORT's own parts (engine/track): the camera-motion estimate against warps made here with known
// parameters, the (centre, width, height) filter and the camera warp of a track's state worked out by hand,
// and the tracker on a made-up video whose camera jerks back and forth over still objects: there BoT-SORT
// must keep every object's id where ByteTrack (whose predictions cannot follow the camera) cannot.
#include <QtTest>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <set>

#include "track/byte_tracker.h"
#include "track/camera_motion.h"
#include "track/kalman_box.h"
#include "ywb/track.h"

using ywb::GmcMethod;
using ywb::track::BoxForm;
using ywb::track::KalmanBox;

class TestBotSort : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase();
  void motionOfKnownWarps_data() { methods(); }
  void motionOfKnownWarps();
  void noMotionWithoutTexture();
  void aNewFrameSizeStartsAfresh_data() { methods(); }
  void aNewFrameSizeStartsAfresh();
  void xywhFilterByHand();
  void warpTurnsStateAndCovariance();
  void joltingCameraKeepsIds_data() { methods(); }
  void joltingCameraKeepsIds();

 private:
  static void methods() {
    QTest::addColumn<int>("method");
    for (GmcMethod m : {GmcMethod::SparseOptFlow, GmcMethod::Orb, GmcMethod::Sift, GmcMethod::Ecc})
      QTest::newRow(ywb::gmcMethodName(m)) << int(m);
  }
};

namespace {

// A scene with texture at every scale: smooth random blobs (corners for optical flow and ECC's gradients)
// and random rectangles with sharp edges (FAST and SIFT keypoints).
cv::Mat scene(int w, int h, unsigned seed) {
  cv::RNG rng(seed);
  cv::Mat coarse(h / 16 + 2, w / 16 + 2, CV_8UC3), img;
  rng.fill(coarse, cv::RNG::UNIFORM, 0, 256);
  cv::resize(coarse, img, cv::Size(coarse.cols * 16, coarse.rows * 16), 0, 0, cv::INTER_CUBIC);
  for (int k = 0; k < w * h / 2000; ++k) {
    const cv::Point p(rng.uniform(0, img.cols), rng.uniform(0, img.rows));
    cv::rectangle(img, p, p + cv::Point(rng.uniform(4, 30), rng.uniform(4, 30)),
                  cv::Scalar(rng.uniform(0, 256), rng.uniform(0, 256), rng.uniform(0, 256)), cv::FILLED);
  }
  return img(cv::Rect(0, 0, w, h)).clone();
}

// A similarity map: turn by `deg` and scale by `s` about (cx, cy), then shift by (tx, ty).
cv::Matx23d similarity(double deg, double s, double cx, double cy, double tx, double ty) {
  cv::Matx23d m(cv::getRotationMatrix2D(cv::Point2f(float(cx), float(cy)), deg, s));
  m(0, 2) += tx, m(1, 2) += ty;
  return m;
}

double maxDiff(const cv::Matx23d& a, const cv::Matx23d& b, double shift_weight) {
  double d = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) d = std::max(d, std::abs(a(i, j) - b(i, j)) * (j == 2 ? shift_weight : 1));
  return d;
}

}  // namespace

void TestBotSort::initTestCase() {
  if (!ywb::track::cameraMotionBuilt())
    QSKIP("this build has no camera-motion compensation (OpenCV video, calib3d, features2d)");
}

// Frame 2 is frame 1 moved by a known map; frame 3 is frame 2 moved by another. The estimate of each step
// must be that step's map (not the map from frame 1: the previous frame moves on): within 0.004 in the
// turn/scale terms and 1.5 px in the shift (the frames are shrunk by 2 first). ECC models no scale (a
// Euclidean motion), so its maps only turn and shift. The first frame gives the identity.
void TestBotSort::motionOfKnownWarps() {
  QFETCH(int, method);
  const GmcMethod m = GmcMethod(method);
  const double s1 = m == GmcMethod::Ecc ? 1.0 : 1.02, s2 = m == GmcMethod::Ecc ? 1.0 : 0.99;
  const cv::Matx23d a = similarity(1.5, s1, 320, 240, 9, -6), b = similarity(-1.0, s2, 320, 240, -7, 4);
  const cv::Mat f1 = scene(640, 480, 7);
  cv::Mat f2, f3;
  cv::warpAffine(f1, f2, a, f1.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  cv::warpAffine(f2, f3, b, f1.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  ywb::track::CameraMotion motion(m);
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0);
  QCOMPARE(maxDiff(motion.apply(f1, {}), identity, 1), 0.0);
  for (const auto& [frame, truth] : {std::pair{f2, a}, std::pair{f3, b}}) {
    const cv::Matx23d got = motion.apply(frame, {});
    const QString text = QString("got [%1 %2 %3; %4 %5 %6]")
                             .arg(got(0, 0))
                             .arg(got(0, 1))
                             .arg(got(0, 2))
                             .arg(got(1, 0))
                             .arg(got(1, 1))
                             .arg(got(1, 2));
    QVERIFY2(maxDiff(got, truth, 0) < 0.004, qPrintable(text));
    QVERIFY2(std::abs(got(0, 2) - truth(0, 2)) < 1.5 && std::abs(got(1, 2) - truth(1, 2)) < 1.5,
             qPrintable(text));
  }
}

// Flat frames have no corners, keypoints or gradients: every method gives the identity, as does `none` on
// a real motion.
void TestBotSort::noMotionWithoutTexture() {
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0);
  const cv::Mat flat(240, 320, CV_8UC3, cv::Scalar(90, 120, 150));
  for (GmcMethod m : {GmcMethod::SparseOptFlow, GmcMethod::Orb, GmcMethod::Sift, GmcMethod::Ecc}) {
    ywb::track::CameraMotion motion(m);
    for (int f = 0; f < 3; ++f) QCOMPARE(maxDiff(motion.apply(flat, {}), identity, 1), 0.0);
  }
  ywb::track::CameraMotion none(GmcMethod::None);
  const cv::Mat f1 = scene(320, 240, 3);
  cv::Mat f2;
  cv::warpAffine(f1, f2, similarity(0, 1, 0, 0, 10, 0), f1.size());
  none.apply(f1, {});
  QCOMPARE(maxDiff(none.apply(f2, {}), identity, 1), 0.0);
}

// One tracker over images of different sizes (persist=true over a folder, as `ywb track` allows): a frame of
// another size than the last has nothing to match with it, so its motion is the identity (it made optical
// flow throw an OpenCV assertion before), and the next frame of that size is estimated against it again.
void TestBotSort::aNewFrameSizeStartsAfresh() {
  QFETCH(int, method);
  const GmcMethod m = GmcMethod(method);
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0), shift = similarity(0, 1, 0, 0, 8, -6);
  const cv::Mat big = scene(640, 480, 5), small = scene(480, 400, 6);
  cv::Mat small2;
  cv::warpAffine(small, small2, shift, small.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  ywb::track::CameraMotion motion(m);
  QCOMPARE(maxDiff(motion.apply(big, {}), identity, 1), 0.0);
  QCOMPARE(maxDiff(motion.apply(small, {}), identity, 1), 0.0);
  const cv::Matx23d got = motion.apply(small2, {});
  QVERIFY2(std::abs(got(0, 2) - 8) < 1.5 && std::abs(got(1, 2) + 6) < 1.5,
           qPrintable(QString("shift %1, %2").arg(got(0, 2)).arg(got(1, 2))));
}

// A box 40 px wide and 100 px high: BoT-SORT's filter scales x and w by the width, y and h by the height.
// Start: var(x) = (2 x 40/20)^2 = 16, var(y) = (2 x 100/20)^2 = 100, var(vx) = (10 x 40/160)^2 = 6.25,
// var(vy) = (10 x 100/160)^2 = 39.0625. Predict: var(x) = 16 + 6.25 + (40/20)^2 = 26.25, cov(x, vx) = 6.25,
// var(vx) = 6.25 + (40/160)^2 = 6.3125. Update with x measured 10 px right (noise (40/20)^2 = 4):
// gain(x) = 26.25 / 30.25, gain(vx) = 6.25 / 30.25.
void TestBotSort::xywhFilterByHand() {
  KalmanBox kf(BoxForm::Xywh, KalmanBox::measure(BoxForm::Xywh, 30, 10, 70, 110));
  QCOMPARE(kf.state()(0), 50.0);
  QCOMPARE(kf.state()(2), 40.0);
  QCOMPARE(kf.covariance()(0, 0), 16.0);
  QCOMPARE(kf.covariance()(1, 1), 100.0);
  QCOMPARE(kf.covariance()(2, 2), 16.0);
  QCOMPARE(kf.covariance()(4, 4), 6.25);
  QCOMPARE(kf.covariance()(5, 5), 39.0625);
  kf.predict();
  QCOMPARE(kf.covariance()(0, 0), 26.25);
  QCOMPARE(kf.covariance()(0, 4), 6.25);
  QCOMPARE(kf.covariance()(4, 4), 6.3125);
  kf.update({60, 60, 40, 100});
  const double s = 26.25 + 4;
  QVERIFY(std::abs(kf.state()(0) - (50 + 10 * 26.25 / s)) < 1e-9);
  QVERIFY(std::abs(kf.state()(4) - 10 * 6.25 / s) < 1e-9);
  QVERIFY(std::abs(kf.state()(2) - 40) < 1e-9);  // the width measured as it was: unchanged
  QVERIFY(std::abs(kf.covariance()(0, 0) - (26.25 - 26.25 * 26.25 / s)) < 1e-9);
  const cv::Vec4d c = kf.corners();
  QVERIFY(std::abs(c[2] - c[0] - 40) < 1e-9 && std::abs(c[3] - c[1] - 100) < 1e-9);
  // A lost BoT-SORT track stops changing size in both directions; a ByteTrack one only in height.
  KalmanBox grow(BoxForm::Xywh, {0, 0, 10, 10}), grow_xyah(BoxForm::Xyah, {0, 0, 1, 10});
  for (KalmanBox* k : {&grow, &grow_xyah}) {
    k->predict();
    k->update({2, 1, k->form() == BoxForm::Xywh ? 14.0 : 1.2, 14});
    QVERIFY(k->state()(6) != 0 && k->state()(7) != 0);
    k->stopGrowth();
    QCOMPARE(k->state()(7), 0.0);
    QVERIFY(k->state()(4) != 0);  // the centre keeps moving
  }
  QCOMPARE(grow.state()(6), 0.0);
  QVERIFY(grow_xyah.state()(6) != 0);  // the aspect's velocity
}

// [R | t] with R a quarter turn (x, y) -> (-y, x) and t = (5, 7), on the state (10, 20, 40, 100, 1, 2, 3, 4):
// each pair turns (the centre, then shifted: (-20 + 5, 10 + 7); the size pair (40, 100) -> (-100, 40); the
// velocities (1, 2) -> (-2, 1) and (3, 4) -> (-4, 3)), and the variances of x and y swap.
void TestBotSort::warpTurnsStateAndCovariance() {
  KalmanBox kf(BoxForm::Xywh, {10, 20, 40, 100});
  kf.predict();  // velocities are still 0; set them through an update
  const double var_x = kf.covariance()(0, 0), var_y = kf.covariance()(1, 1);
  kf.warp(cv::Matx23d(0, -1, 5, 1, 0, 7));
  QCOMPARE(kf.state()(0), -15.0);
  QCOMPARE(kf.state()(1), 17.0);
  QCOMPARE(kf.state()(2), -100.0);
  QCOMPARE(kf.state()(3), 40.0);
  QCOMPARE(kf.covariance()(0, 0), var_y);
  QCOMPARE(kf.covariance()(1, 1), var_x);
  // Velocities turn too: a filter that has learnt a motion (vx, vy) then turned by the same quarter turn.
  KalmanBox moving(BoxForm::Xywh, {0, 0, 40, 100});
  for (int f = 1; f <= 5; ++f) {
    moving.predict();
    moving.update({3.0 * f, 0, 40, 100});
  }
  const double vx = moving.state()(4), vy = moving.state()(5);
  QVERIFY(vx > 1);
  moving.warp(cv::Matx23d(0, -1, 0, 1, 0, 0));
  QCOMPARE(moving.state()(4), -vy);
  QCOMPARE(moving.state()(5), vx);
  // A pure shift moves only the centre and leaves the covariance as it was.
  KalmanBox shifted(BoxForm::Xywh, {10, 20, 40, 100});
  const KalmanBox::Cov before = shifted.covariance();
  shifted.warp(cv::Matx23d(1, 0, -25, 0, 1, 3));
  QCOMPARE(shifted.state()(0), -15.0);
  QCOMPARE(shifted.state()(1), 23.0);
  QCOMPARE(shifted.state()(2), 40.0);
  QCOMPARE(cv::norm(cv::Mat(shifted.covariance()), cv::Mat(before), cv::NORM_INF), 0.0);
}

// Five still objects (12 x 12 px, detected every frame at 0.9) filmed by a camera that jolts 10 px right
// or left each frame, its direction changing every two frames, for 30 frames: the camera stands at B, C,
// B, A, B, C, ... (A, B, C 10 px apart). Consecutive boxes of one object overlap by IoU 2/22, so a tracker
// that does not follow the camera cannot match them (cost 1 - 0.09 x 0.9 > match_thresh 0.8), and its
// Kalman velocity cannot learn a motion that keeps turning back. BoT-SORT moves its predictions with the
// estimated camera motion: ids 1-5, each on its object, in every frame. ByteTrack on the same detections
// (and BoT-SORT without gmc) lose the objects whenever the camera leaves B and find them again (lost
// tracks are kept) when it is back: the five are shown in the 15 B frames only.
void TestBotSort::joltingCameraKeepsIds() {
  QFETCH(int, method);
  constexpr int kW = 480, kH = 320, kFrames = 30, kJolt = 10, kBox = 12;
  const cv::Mat world = scene(kW + 40 * kJolt, kH + 40, 11);
  const std::vector<cv::Point> objects = {{300, 60}, {500, 200}, {640, 100}, {420, 240}, {560, 40}};
  ywb::TrackerOptions bot;
  bot.gmc_method = GmcMethod(method);
  ywb::TrackerOptions byte = bot, still = bot;
  byte.type = ywb::TrackerType::ByteTrack;
  still.gmc_method = GmcMethod::None;
  ywb::track::ByteTracker tb(bot), tbyte(byte), tstill(still);
  int shown_byte = 0, shown_still = 0;  // frames where all five are shown
  int camera = 200;
  for (int f = 0; f < kFrames; ++f) {
    camera += (f / 2) % 2 == 0 ? kJolt : -kJolt;
    const cv::Mat frame = world(cv::Rect(camera, 20, kW, kH));
    std::vector<ywb::DetBox> dets;
    for (const cv::Point& p : objects) {
      ywb::DetBox d;
      d.x1 = float(p.x - camera), d.y1 = float(p.y), d.x2 = d.x1 + kBox, d.y2 = d.y1 + kBox;
      d.score = 0.9f;
      if (d.x1 >= 0 && d.x2 <= kW) dets.push_back(d);
    }
    QCOMPARE(dets.size(), objects.size());  // all in view throughout
    const std::vector<ywb::DetBox> out = tb.update(dets, frame);
    std::set<int> ids;
    for (const ywb::DetBox& b : out) ids.insert(b.track_id);
    QCOMPARE(ids, (std::set<int>{1, 2, 3, 4, 5}));
    for (const ywb::DetBox& b : out) {  // and each id on its own object
      const cv::Point p = objects[size_t(b.track_id - 1)];
      QVERIFY2(std::abs(b.x1 - float(p.x - camera)) < 3 && std::abs(b.y1 - float(p.y)) < 3,
               qPrintable(QString("frame %1 id %2 at %3").arg(f + 1).arg(b.track_id).arg(b.x1)));
    }
    shown_byte += tbyte.update(dets, frame).size() == objects.size();
    shown_still += tstill.update(dets, frame).size() == objects.size();
  }
  QCOMPARE(shown_byte, kFrames / 2);
  QCOMPARE(shown_still, kFrames / 2);
}

QTEST_GUILESS_MAIN(TestBotSort)
#include "test_botsort.moc"
