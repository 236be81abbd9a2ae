// BoT-SORT's ReID with the detector's own features (with_reid: True, model: auto). Each judge is worked out
// by hand from the published rules (Ultralytics' BoT-SORT: the feature of a detection is the head's input at
// its anchor, its channels averaged in groups down to the fewest channels of any level; a track smooths its
// unit-length features with 0.9 x old + 0.1 x new; the appearance cost is the cosine distance halved, used
// only for pairs with 1 - IoU <= proximity_thresh 0.5 and cost <= appearance_thresh 0.8, and the pair's
// cost is the lower of it and the motion cost).
#include <ATen/ATen.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "track/appearance.h"
#include "track/byte_tracker.h"
#include "ywb/error.h"
#include "ywb/track.h"

using ywb::DetBox;
using ywb::track::Appearance;
using ywb::track::ByteTracker;
using ywb::track::Features;

namespace {

DetBox box(float x1, float x2, float score = 0.9f) {
  DetBox b;
  b.x1 = x1, b.x2 = x2, b.y1 = 0, b.y2 = 100, b.score = score;
  return b;
}

// A BoT-SORT with ReID that is shown no frames (so no camera motion), and its thresholds.
ywb::TrackerOptions reidOptions(double appearance_thresh = 0.8) {
  ywb::TrackerOptions o;
  o.with_reid = true;
  o.appearance_thresh = appearance_thresh;
  return o;
}

// The track ids given to two objects that swap places between two frames: frame 1 has object A (features
// `a`) at `left` and B (features `b`) at `right`; in frame 2 the detection at `right` has features a2 and
// the one at `left` b2 (in that order). Returns the ids of frame 2's detections at right and at left.
std::pair<int, int> swap(const ywb::TrackerOptions& o, std::pair<float, float> left,
                         std::pair<float, float> right, const std::vector<float>& a,
                         const std::vector<float>& b, const std::vector<float>& a2,
                         const std::vector<float>& b2) {
  ByteTracker t(o);
  const auto f1 = t.update({box(left.first, left.second), box(right.first, right.second)}, cv::Mat(), {a, b});
  if (f1.size() != 2 || f1[0].track_id != 1 || f1[1].track_id != 2) return {-1, -1};
  // The detection at right is told by its class (the association ignores classes; the filtered box lies
  // between the old place and the new one).
  DetBox r = box(right.first, right.second);
  r.cls = 1;
  const auto f2 = t.update({r, box(left.first, left.second)}, cv::Mat(), {a2, b2});
  int at_right = 0, at_left = 0;
  for (const DetBox& d : f2) (d.cls == 1 ? at_right : at_left) = d.track_id;
  return {at_right, at_left};
}

const std::vector<float> e1 = {1, 0, 0, 0}, e2 = {0, 1, 0, 0};

}  // namespace

class TestTrackReid : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // objectFeatures against a loop over the maps: levels of 4, 8 and 16 channels (s = 4) on 4x4, 2x2 and 1x1
  // grids; anchor a of level l is position a - (anchors before l), row-major; group g of a level with C
  // channels averages channels g C/4 .. (g+1) C/4 - 1 of image 0.
  void featuresAreGroupMeansAtTheAnchor() {
    at::manual_seed(5);
    const std::vector<at::Tensor> maps = {at::randn({2, 4, 4, 4}), at::randn({2, 8, 2, 2}),
                                          at::randn({2, 16, 1, 1})};
    const at::Tensor anchors =
        at::tensor({int64_t(0), int64_t(5), int64_t(15), int64_t(16), int64_t(19), int64_t(20)});
    const Features f = ywb::track::objectFeatures(maps, anchors);
    QCOMPARE(f.size(), size_t(6));
    for (size_t i = 0; i < f.size(); ++i) {
      int64_t a = anchors[int64_t(i)].item<int64_t>();
      size_t l = 0;
      while (a >= maps[l].size(2) * maps[l].size(3)) a -= maps[l].size(2) * maps[l].size(3), ++l;
      const int64_t w = maps[l].size(3), c = maps[l].size(1), per = c / 4;
      QCOMPARE(f[i].size(), size_t(4));
      for (int64_t g = 0; g < 4; ++g) {
        double sum = 0;
        for (int64_t k = g * per; k < (g + 1) * per; ++k) sum += maps[l][0][k][a / w][a % w].item<float>();
        QVERIFY2(std::abs(f[i][size_t(g)] - sum / double(per)) < 1e-6,
                 qPrintable(QString("anchor %1 group %2").arg(i).arg(g)));
      }
    }
    // A level whose channels are no multiple of the fewest, and an anchor past the maps, are refused.
    QVERIFY_THROWS_EXCEPTION(ywb::Error,
                             ywb::track::objectFeatures({at::zeros({1, 4, 2, 2}), at::zeros({1, 6, 1, 1})},
                                                        at::tensor({int64_t(0)})));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::track::objectFeatures(maps, at::tensor({int64_t(21)})));
  }

  // Unit length, the 0.9 / 0.1 running average and the halved cosine distance, by hand.
  void smoothingAndCostByHand() {
    Appearance t;
    t.update({3, 4});
    QCOMPARE(t.current, (std::vector<float>{0.6f, 0.8f}));
    QCOMPARE(t.smooth, t.current);
    Appearance u;
    u.update(e1);
    u.update(e2);  // 0.9 e1 + 0.1 e2, over its length sqrt(0.82)
    QVERIFY(std::abs(u.smooth[0] - 0.9 / std::sqrt(0.82)) < 1e-6);
    QVERIFY(std::abs(u.smooth[1] - 0.1 / std::sqrt(0.82)) < 1e-6);
    Appearance d;
    d.update(e2);
    QVERIFY(std::abs(ywb::track::appearanceCost(u, d) - (1 - 0.1 / std::sqrt(0.82)) / 2) < 1e-6);
    Appearance opposite;
    opposite.update({-1, 0, 0, 0});
    Appearance e;
    e.update(e1);
    QCOMPARE(ywb::track::appearanceCost(e, opposite), 1.0);      // cosine distance 2, halved
    QCOMPARE(ywb::track::appearanceCost(e, Appearance{}), 1.0);  // no features: no appearance
  }

  // Two objects swap places: boxes [0, 100] and [20, 120] (IoU 8000 / 12000 = 2/3, scores 0.9). Motion
  // costs, fused with the score: the same place 1 - 0.9 = 0.1, the other place 1 - 2/3 x 0.9 = 0.4. By
  // place alone the ids follow the places (0.1 + 0.1 against 0.4 + 0.4). With ReID each object keeps its own
  // look: same features cost 0, other features (orthogonal) 0.5, so keeping the ids costs 0 + 0 against
  // 0.1 + 0.1: ids follow the objects.
  void appearanceKeepsTheIdsOfObjectsThatSwap() {
    ywb::TrackerOptions plain;
    QCOMPARE(swap(plain, {0, 100}, {20, 120}, e1, e2, e1, e2), std::make_pair(2, 1));  // features unused
    QCOMPARE(swap(reidOptions(), {0, 100}, {20, 120}, e1, e2, e1, e2), std::make_pair(1, 2));
    // ByteTrack has no ReID: the with_reid flag changes nothing there.
    ywb::TrackerOptions byte = reidOptions();
    byte.type = ywb::TrackerType::ByteTrack;
    QCOMPARE(swap(byte, {0, 100}, {20, 120}, e1, e2, e1, e2), std::make_pair(2, 1));
  }

  // proximity_thresh: with boxes [0, 100] and [60, 160] the other place has IoU 4000 / 16000 = 0.25,
  // 1 - IoU = 0.75 > 0.5, so appearance does not count there: other place 1 - 0.25 x 0.9 = 0.775 each,
  // ids follow the places again.
  void farPairsIgnoreAppearance() {
    QCOMPARE(swap(reidOptions(), {0, 100}, {60, 160}, e1, e2, e1, e2), std::make_pair(2, 1));
  }

  // appearance_thresh: frame 2's object A looks (e1 + 0.5 e2) / |..| (cosine 1 / sqrt(1.25) with A, cost
  // (1 - 0.894) / 2 = 0.053), B looks e2 (cost 0 with B). At 0.8 keeping the ids costs 0.053 + 0 against
  // 0.1 + 0.1 (B's track against A's detection: cosine 0.447, cost 0.276, above the motion cost 0.1): ids
  // follow the objects. At 0.01 A's 0.053 is over the threshold and its pair costs its motion cost 0.4:
  // 0.4 + 0 against 0.2, ids follow the places.
  void appearanceThresholdGates() {
    const std::vector<float> a2 = {1, 0.5f, 0, 0};
    QCOMPARE(swap(reidOptions(0.8), {0, 100}, {20, 120}, e1, e2, a2, e2), std::make_pair(1, 2));
    QCOMPARE(swap(reidOptions(0.01), {0, 100}, {20, 120}, e1, e2, a2, e2), std::make_pair(2, 1));
  }

  // Features for another number of detections are refused; none at all is tracking without appearance.
  void featuresMustMatchTheDetections() {
    ByteTracker t(reidOptions());
    QVERIFY_THROWS_EXCEPTION(ywb::Error, t.update({box(0, 100)}, cv::Mat(), {e1, e2}));
    QCOMPARE(t.update({box(0, 100)}, cv::Mat(), {}).size(), size_t(1));
  }

  // The YAML keys: with_reid and its thresholds are read; model: auto (or none) is the detector's features,
  // any other model (a separate ReID network, as yolo11n-cls.pt) is refused with where and why.
  void reidSettingsAreRead() {
    QTemporaryDir tmp;
    const auto write = [&](const char* text) {
      const std::string p = tmp.path().toStdString() + "/reid.yaml";
      std::ofstream(p) << text;
      return p;
    };
    const ywb::TrackerOptions o =
        ywb::loadTrackerOptions(write("tracker_type: botsort\nwith_reid: True\nproximity_thresh: "
                                      "0.4\nappearance_thresh: 0.3\nmodel: auto\n"));
    QVERIFY(o.with_reid);
    QCOMPARE(o.proximity_thresh, 0.4);
    QCOMPARE(o.appearance_thresh, 0.3);
    QVERIFY(!ywb::loadTrackerOptions("botsort.yaml").with_reid);  // Ultralytics' default: off
    QVERIFY(!ywb::loadTrackerOptions(write("tracker_type: bytetrack\nwith_reid: True\n")).with_reid);
    const std::string path = write("with_reid: True\nmodel: yolo11n-cls.pt\n");
    try {
      ywb::loadTrackerOptions(path);
      QFAIL("a separate ReID model was accepted");
    } catch (const ywb::Error& e) {
      QVERIFY2(
          std::string(e.what()).find(path + ":2: model: 'yolo11n-cls.pt': a separate ReID network is not "
                                            "available") != std::string::npos,
          e.what());
    }
    // Without ReID the model key is only checked.
    QVERIFY(!ywb::loadTrackerOptions(write("with_reid: False\nmodel: yolo11n-cls.pt\n")).with_reid);
  }
};

QTEST_GUILESS_MAIN(TestTrackReid)
#include "test_track_reid.moc"
