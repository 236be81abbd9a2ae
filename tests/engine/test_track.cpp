// ByteTrack's parts (engine/track) against numbers worked out by hand and a brute-force search, and the
// tracker on made-up detection sequences whose right answers follow from ByteTrack's published rules
// (Zhang et al. 2022; Ultralytics' bytetrack.yaml defaults: high 0.25, low 0.1, new 0.25, buffer 30,
// match 0.8, fused scores).
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "track/byte_tracker.h"
#include "track/kalman_box.h"
#include "track/linear_assignment.h"
#include "ywb/error.h"
#include "ywb/track.h"

using ywb::DetBox;
using ywb::track::ByteTracker;

namespace {

// The options of the row's tracker type (trackerTypes()).
ywb::TrackerOptions rowOptions() {
  QFETCH(int, type);
  ywb::TrackerOptions o;
  o.type = ywb::TrackerType(type);
  return o;
}

}  // namespace

class TestTrack : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void assignmentIsOptimal();
  void kalmanStepsByHand();
  void parallelObjectsKeepTheirIds_data() { trackerTypes(); }
  void parallelObjectsKeepTheirIds();
  void lostObjectsAreKeptForTheBuffer_data() { trackerTypes(); }
  void lostObjectsAreKeptForTheBuffer();
  void lowScoresKeepATrackButStartNone_data() { trackerTypes(); }
  void lowScoresKeepATrackButStartNone();
  void laterObjectsNeedASecondMatch_data() { trackerTypes(); }
  void laterObjectsNeedASecondMatch();
  void trackerFilesAreChecked();

 private:
  // The association rules are ByteTrack's in both trackers: each rule is checked with each (BoT-SORT given no
  // frames, so without camera motion, with its (centre, width, height) filter).
  static void trackerTypes() {
    QTest::addColumn<int>("type");
    QTest::newRow("bytetrack") << int(ywb::TrackerType::ByteTrack);
    QTest::newRow("botsort") << int(ywb::TrackerType::BotSort);
  }
};

namespace {

// The objective assignWithLimit minimises: matched costs plus limit/2 for each unmatched row and column.
double objective(const std::vector<double>& c, int rows, int cols, double limit,
                 const std::vector<std::pair<int, int>>& m) {
  double sum = limit / 2 * (rows + cols - 2 * int(m.size()));
  for (const auto& [i, j] : m) sum += c[size_t(i * cols + j)];
  return sum;
}

// Every partial matching, for the brute-force minimum.
void search(const std::vector<double>& c, int rows, int cols, double limit, int row, std::vector<bool>& used,
            double so_far, double& best) {
  if (row == rows) {
    int free_cols = 0;
    for (bool u : used) free_cols += !u;
    best = std::min(best, so_far + limit / 2 * free_cols);
    return;
  }
  search(c, rows, cols, limit, row + 1, used, so_far + limit / 2, best);  // row left unmatched
  for (int j = 0; j < cols; ++j) {
    if (used[size_t(j)]) continue;
    used[size_t(j)] = true;
    search(c, rows, cols, limit, row + 1, used, so_far + c[size_t(row * cols + j)], best);
    used[size_t(j)] = false;
  }
}

DetBox box(float cx, float cy, float w, float h, float score, int cls = 0) {
  DetBox b;
  b.x1 = cx - w / 2, b.y1 = cy - h / 2, b.x2 = cx + w / 2, b.y2 = cy + h / 2;
  b.score = score;
  b.cls = cls;
  return b;
}

// The track id of the output box nearest (cx, cy), or 0 when no output box is within 5 px of it.
int idNear(const std::vector<DetBox>& out, float cx, float cy) {
  for (const DetBox& b : out)
    if (std::abs((b.x1 + b.x2) / 2 - cx) < 5 && std::abs((b.y1 + b.y2) / 2 - cy) < 5) return b.track_id;
  return 0;
}

}  // namespace

// 2000 random problems up to 5 x 5 with costs on both sides of the limit (and some exactly on it): the
// matching found costs what the best of all partial matchings costs, it is a matching, and no pair in it
// costs more than the limit.
void TestTrack::assignmentIsOptimal() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1.3);
  for (int trial = 0; trial < 2000; ++trial) {
    const int rows = int(rng() % 6), cols = int(rng() % 6);
    const double limit = trial % 2 ? 0.8 : 0.5;
    std::vector<double> c(size_t(rows * cols));
    for (double& x : c) x = rng() % 10 == 0 ? limit : u(rng);
    const auto m = ywb::track::assignWithLimit(c, rows, cols, limit);
    std::set<int> rs, cs;
    for (const auto& [i, j] : m) {
      QVERIFY(rs.insert(i).second && cs.insert(j).second);
      QVERIFY(c[size_t(i * cols + j)] <= limit);
    }
    double best = 1e9;
    std::vector<bool> used(size_t(cols), false);
    search(c, rows, cols, limit, 0, used, 0, best);
    QVERIFY2(
        std::abs(objective(c, rows, cols, limit, m) - best) < 1e-9,
        qPrintable(
            QString("trial %1: %2 against %3").arg(trial).arg(objective(c, rows, cols, limit, m)).arg(best)));
  }
  // An impossible pair (infinite cost) is simply not matched.
  const auto m = ywb::track::assignWithLimit({std::numeric_limits<double>::infinity(), 0.1}, 1, 2, 0.8);
  QCOMPARE(m.size(), size_t(1));
  QCOMPARE(m[0], std::make_pair(0, 1));
}

// A box 100 px high. The filter's coordinates pair up (x with vx, y with vy, ...), so each pair is a 2 x 2
// problem worked out by hand. Start: var(x) = (2 x 100/20)^2 = 100, var(vx) = (10 x 100/160)^2 = 39.0625.
// Predict: var(x) = 100 + 39.0625 + (100/20)^2 = 164.0625, cov(x, vx) = 39.0625,
// var(vx) = 39.0625 + (100/160)^2 = 39.453125. Update with x measured 10 px right (noise (100/20)^2 = 25):
// gain(x) = 164.0625 / 189.0625, gain(vx) = 39.0625 / 189.0625.
void TestTrack::kalmanStepsByHand() {
  ywb::track::KalmanBox kf(ywb::track::BoxForm::Xyah, {50, 60, 0.5, 100});
  QCOMPARE(kf.covariance()(0, 0), 100.0);
  QCOMPARE(kf.covariance()(4, 4), 39.0625);
  QCOMPARE(kf.covariance()(2, 2), 1e-4);
  kf.predict();
  QCOMPARE(kf.state()(0), 50.0);  // at rest: predicting does not move it
  QCOMPARE(kf.covariance()(0, 0), 164.0625);
  QCOMPARE(kf.covariance()(0, 4), 39.0625);
  QCOMPARE(kf.covariance()(4, 4), 39.453125);
  kf.update({60, 60, 0.5, 100});
  const double s = 164.0625 + 25;
  QVERIFY(std::abs(kf.state()(0) - (50 + 10 * 164.0625 / s)) < 1e-9);
  QVERIFY(std::abs(kf.state()(4) - 10 * 39.0625 / s) < 1e-9);
  QVERIFY(std::abs(kf.state()(1) - 60) < 1e-9);  // y measured where it was: unchanged
  QVERIFY(std::abs(kf.covariance()(0, 0) - (164.0625 - 164.0625 * 164.0625 / s)) < 1e-9);
  // The next prediction moves x by the velocity it learnt.
  const double x = kf.state()(0), vx = kf.state()(4);
  kf.predict();
  QVERIFY(std::abs(kf.state()(0) - (x + vx)) < 1e-9);
}

// Two objects moving side by side for 60 frames, 4 px a frame: ids 1 and 2 from frame 1 to the end (the
// first frame's objects are confirmed at once), and the filter's boxes settle on the detections.
void TestTrack::parallelObjectsKeepTheirIds() {
  ByteTracker t{rowOptions()};
  for (int f = 0; f < 60; ++f) {
    const float x = 50 + 4.f * f;
    const auto out = t.update({box(x, 100, 40, 60, 0.9f, 2), box(x, 200, 40, 60, 0.8f, 5)});
    QCOMPARE(out.size(), size_t(2));
    QCOMPARE(idNear(out, x, 100), 1);
    QCOMPARE(idNear(out, x, 200), 2);
    for (const DetBox& b : out) QCOMPARE(b.cls, b.track_id == 1 ? 2 : 5);
    if (f == 59)
      for (const DetBox& b : out)
        QVERIFY2(std::abs(b.x1 - (x - 20)) < 0.5, qPrintable(QString::number(b.x1)));
  }
}

// A still object unseen for 30 frames (the buffer) comes back with its id; unseen for 31 it is gone, and
// coming back it is a new object (id 2), shown from its second frame on. Unseen, it is not shown.
void TestTrack::lostObjectsAreKeptForTheBuffer() {
  for (const int gap : {30, 31}) {
    ByteTracker t{rowOptions()};
    for (int f = 0; f < 5; ++f) QCOMPARE(idNear(t.update({box(100, 100, 50, 50, 0.9f)}), 100, 100), 1);
    for (int f = 0; f < gap; ++f) QVERIFY(t.update({}).empty());
    const auto back = t.update({box(100, 100, 50, 50, 0.9f)});
    if (gap == 30) {
      QCOMPARE(idNear(back, 100, 100), 1);
    } else {
      QVERIFY(back.empty());  // a new track waits for its second match
      QCOMPARE(idNear(t.update({box(100, 100, 50, 50, 0.9f)}), 100, 100), 2);
    }
  }
}

// A tracked object whose score dips into (0.1, 0.25) stays shown with its id (the second association);
// one below 0.1 is lost meanwhile and found again with its id. A detection that never reaches 0.25 starts
// no track.
void TestTrack::lowScoresKeepATrackButStartNone() {
  ByteTracker t{rowOptions()};
  for (int f = 0; f < 3; ++f) t.update({box(100, 100, 50, 50, 0.9f)});
  for (int f = 0; f < 5; ++f) {
    const auto out = t.update({box(100, 100, 50, 50, 0.15f), box(300, 300, 50, 50, 0.2f)});
    QCOMPARE(out.size(), size_t(1));  // the 0.2 object at (300, 300) is not tracked
    QCOMPARE(idNear(out, 100, 100), 1);
    QCOMPARE(out[0].score, 0.15f);  // the score shown is the detection's
  }
  for (int f = 0; f < 4; ++f) QVERIFY(t.update({box(100, 100, 50, 50, 0.05f)}).empty());
  QCOMPARE(idNear(t.update({box(100, 100, 50, 50, 0.7f)}), 100, 100), 1);
}

// Objects of frame 1 with scores under 0.25 start nothing; an object appearing later is shown from its
// second matched frame; a one-frame false detection takes an id (given when its track starts) and is never
// shown, so the next real object has the id after it.
void TestTrack::laterObjectsNeedASecondMatch() {
  ByteTracker t{rowOptions()};
  QCOMPARE(t.update({box(100, 100, 50, 50, 0.9f), box(300, 100, 50, 50, 0.2f)}).size(), size_t(1));
  t.update({box(100, 100, 50, 50, 0.9f), box(400, 400, 30, 30, 0.6f)});             // a false detection: id 2
  auto out = t.update({box(100, 100, 50, 50, 0.9f), box(250, 250, 40, 40, 0.8f)});  // a new object: id 3
  QCOMPARE(out.size(), size_t(1));
  out = t.update({box(100, 100, 50, 50, 0.9f), box(252, 250, 40, 40, 0.8f)});
  QCOMPARE(out.size(), size_t(2));
  QCOMPARE(idNear(out, 100, 100), 1);
  QCOMPARE(idNear(out, 252, 250), 3);
  QCOMPARE(t.frame(), 4);
  // The false detection's track was removed when it went unmatched (not kept waiting): seen again at the
  // same place it is a new object, id 4, shown from its second frame on.
  out = t.update({box(100, 100, 50, 50, 0.9f), box(254, 250, 40, 40, 0.8f), box(400, 400, 30, 30, 0.6f)});
  QCOMPARE(out.size(), size_t(2));
  out = t.update({box(100, 100, 50, 50, 0.9f), box(256, 250, 40, 40, 0.8f), box(400, 400, 30, 30, 0.6f)});
  QCOMPARE(out.size(), size_t(3));
  QCOMPARE(idNear(out, 400, 400), 4);
}

// tracker= values: the built-in name, a file with Ultralytics' keys, and what is refused with the file,
// its line and the key.
void TestTrack::trackerFilesAreChecked() {
  const ywb::TrackerOptions d = ywb::loadTrackerOptions("bytetrack.yaml");
  QCOMPARE(d.type, ywb::TrackerType::ByteTrack);
  QCOMPARE(d.track_high_thresh, 0.25);
  QCOMPARE(d.track_buffer, 30);
  // botsort.yaml: the same thresholds, sparse optical flow (Ultralytics' botsort.yaml).
  const ywb::TrackerOptions b = ywb::loadTrackerOptions("botsort");
  QCOMPARE(b.type, ywb::TrackerType::BotSort);
  QCOMPARE(b.gmc_method, ywb::GmcMethod::SparseOptFlow);
  QCOMPARE(b.match_thresh, 0.8);
  QTemporaryDir tmp;
  auto write = [&](const char* name, const char* text) {
    const std::string p = (tmp.path() + "/" + name).toStdString();
    std::ofstream(p) << text;
    return p;
  };
  const ywb::TrackerOptions o = ywb::loadTrackerOptions(write(
      "mine.yaml", "tracker_type: bytetrack\ntrack_high_thresh: 0.5\ntrack_buffer: 60\nfuse_score: False\n"));
  QCOMPARE(o.track_high_thresh, 0.5);
  QCOMPARE(o.track_buffer, 60);
  QCOMPARE(o.fuse_score, false);
  QCOMPARE(o.match_thresh, 0.8);  // not given: the default
  // Ultralytics' botsort.yaml keys, ReID's included (off: test_track_reid has it on); gmc_method in a
  // ByteTrack file is ignored.
  const ywb::TrackerOptions bo = ywb::loadTrackerOptions(
      write("bot.yaml",
            "tracker_type: botsort\ngmc_method: orb\nproximity_thresh: 0.5\nappearance_thresh: 0.8\n"
            "with_reid: False\nmodel: auto\n"));
  QCOMPARE(bo.type, ywb::TrackerType::BotSort);
  QCOMPARE(bo.gmc_method, ywb::GmcMethod::Orb);
  QCOMPARE(ywb::loadTrackerOptions(write("byte.yaml", "tracker_type: bytetrack\ngmc_method: ecc\n")).type,
           ywb::TrackerType::ByteTrack);
  QCOMPARE(ywb::loadTrackerOptions(write("nogmc.yaml", "gmc_method: None\n")).gmc_method,
           ywb::GmcMethod::None);
  const std::map<std::string, std::string> bad = {
      {"tracker_type: bytetrack\ntrack_bufer: 3\n", ":2: unknown setting 'track_bufer'"},
      {"match_thresh: 1.5\n", ":1: match_thresh: 1.5 is outside [0, 1]"},
      {"track_buffer: 2.5\n", ":1: track_buffer: expected a whole number of frames"},
      {"track_low_thresh: low\n", ":1: track_low_thresh: expected a number, found 'low'"},
      {"tracker_type: deepsort\n", ":1: tracker_type: 'deepsort' is not a tracker"},
      {"gmc_method: optflow\n", ":1: gmc_method: 'optflow' is not a method"},
      {"track_high_thresh: 0.3\nwith_reid: true\nmodel: osnet.pt\n",
       ":3: model: 'osnet.pt': a separate ReID"},
      {"proximity_thresh: 2\n", ":1: proximity_thresh: 2 is outside [0, 1]"},
      {"track_low_thresh: 0.5\ntrack_high_thresh: 0.3\n",
       "track_low_thresh 0.5 is above track_high_thresh 0.3"},
      {"track_high_thresh: [0.3\n", ":2:1: broken YAML: "}};
  for (const auto& [text, message] : bad) {
    const std::string path = write("bad.yaml", text.c_str());
    try {
      ywb::loadTrackerOptions(path);
      QFAIL(qPrintable(QString::fromStdString("accepted: " + text)));
    } catch (const ywb::Error& e) {
      QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
      if (message[0] == ':') QVERIFY2(std::string(e.what()).rfind(path, 0) == 0, e.what());
    }
  }
  QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::loadTrackerOptions("deepsort.yaml"));
  QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::loadTrackerOptions(tmp.path().toStdString() + "/none.yaml"));
}

QTEST_GUILESS_MAIN(TestTrack)
#include "test_track.moc"
