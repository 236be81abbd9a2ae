// `ywb track` as a user runs it (a real process) on a video made here: a shapes validation image seen
// through a window that pans 2 px right and 1 px down per frame, so every object moves (-2, -1) px a frame.
// The judges are invariants: a track's box is one of that frame's detections (what `ywb predict` finds at
// the same confidence), filtered; the same object in consecutive frames keeps its id and one id stays on
// one object; `ywb track` (BoT-SORT by default) equals the tracker run here on `ywb predict`'s detections and
// the decoded frames; an image is a video of one frame, where every detection at 0.25 or above starts a
// track.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <set>

#include "cli_runner.h"
#include "track/byte_tracker.h"

#ifdef YW_HAVE_OPENCV_VIDEOIO
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#endif

class TestTrackVideo : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase();
  void tracksFollowTheObjects();
  void anImageIsOneFrame();
  void aFrameFolderWithPersist();
  void reidFollowsTheObjects();
  void badTrackerArguments();

 private:
  QTemporaryDir tmp_;
};

#ifdef YW_HAVE_OPENCV_VIDEOIO

namespace {

const QString kWeights = QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";
const QString kVal = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val/";
const QString kImage = kVal + "val_00005.jpg";
constexpr int kFrames = 24;
constexpr float kDx = -2, kDy = -1;  // each object's motion per frame

QJsonObject runJson(const QString& verb, const QStringList& args) {
  const CliResult r =
      ywbRun(QStringList{verb, "weights=" + kWeights, "device=cpu", "imgsz=256", "--json"} + args);
  if (r.code != 0) qWarning("ywb %s failed (%d): %s", qPrintable(verb), r.code, r.err.constData());
  return QJsonDocument::fromJson(r.out).object();
}

struct Box {
  float x1, y1, x2, y2, score;
  int cls, id;
};

std::vector<Box> boxesOf(const QJsonObject& frame) {
  std::vector<Box> out;
  for (const auto& v : frame["detections"].toArray()) {
    const QJsonObject d = v.toObject();
    const QJsonArray b = d["box"].toArray();
    out.push_back({float(b[0].toDouble()), float(b[1].toDouble()), float(b[2].toDouble()),
                   float(b[3].toDouble()), float(d["confidence"].toDouble()), d["class"].toInt(),
                   d["track_id"].toInt()});
  }
  return out;
}

double iou(const Box& a, const Box& b, float dx = 0, float dy = 0) {
  const double iw = std::max(0.f, std::min(a.x2 + dx, b.x2) - std::max(a.x1 + dx, b.x1));
  const double ih = std::max(0.f, std::min(a.y2 + dy, b.y2) - std::max(a.y1 + dy, b.y1));
  const double inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

// The invariants of tracks `t` against the same frames' detections `p` (predict at the tracking conf):
// ids from 1, one per box in a frame; each track box is one of the frame's detections (same class and
// score, a box the filter moved only a little); an id continues on one object (its boxes in consecutive
// frames overlap once the pan is undone); and objects were followed (far fewer ids than boxes).
void checkFollows(const QJsonArray& t, const QJsonArray& p) {
  QCOMPARE(t.size(), kFrames);
  QCOMPARE(p.size(), kFrames);
  int continued = 0, total = 0;
  std::set<int> ids;
  for (int f = 0; f < kFrames; ++f) {
    const std::vector<Box> tb = boxesOf(t[f].toObject()), pb = boxesOf(p[f].toObject());
    std::set<int> here;
    for (const Box& b : tb) {
      QVERIFY2(b.id >= 1 && here.insert(b.id).second,
               qPrintable(QString("frame %1 id %2").arg(f + 1).arg(b.id)));
      ids.insert(b.id);
      bool found = false;
      for (const Box& d : pb) found = found || (d.cls == b.cls && d.score == b.score && iou(b, d) > 0.8);
      QVERIFY2(found,
               qPrintable(QString("frame %1: track %2 is no detection of the frame").arg(f + 1).arg(b.id)));
    }
    total += int(tb.size());
    if (f == 0) continue;
    for (const Box& a : boxesOf(t[f - 1].toObject())) {
      for (const Box& b : tb) {
        if (a.id != b.id) continue;
        const double o = iou(a, b, kDx, kDy);
        QVERIFY2(o > 0.3, qPrintable(QString("frame %1: id %2 jumped (IoU %3)").arg(f + 1).arg(a.id).arg(o)));
        ++continued;
      }
    }
  }
  // A tracker that numbered every box anew would fail here.
  QVERIFY2(
      continued >= 10 && int(ids.size()) * 2 < total,
      qPrintable(QString("%1 boxes, %2 continuations, %3 ids").arg(total).arg(continued).arg(ids.size())));
}

}  // namespace

void TestTrackVideo::initTestCase() {
  QVERIFY(tmp_.isValid());
  // Four images in which this model finds objects, side by side (256 x 224 px), predicted at 256.
  std::vector<cv::Mat> tiles;
  for (const char* name : {"val_00005.jpg", "val_00010.jpg", "val_00002.jpg", "val_00011.jpg"}) {
    cv::Mat t = cv::imread((kVal + name).toStdString());
    QVERIFY(!t.empty());
    cv::resize(t, t, cv::Size(128, 112));
    tiles.push_back(t);
  }
  cv::Mat top, bottom, img, wide;
  cv::hconcat(tiles[0], tiles[1], top);
  cv::hconcat(tiles[2], tiles[3], bottom);
  cv::vconcat(top, bottom, img);
  cv::copyMakeBorder(img, wide, 0, 32, 0, 48, cv::BORDER_REFLECT);
  cv::VideoWriter avi((tmp_.path() + "/pan.avi").toStdString(), cv::CAP_OPENCV_MJPEG,
                      cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 12, img.size());
  QVERIFY(avi.isOpened());
  for (int f = 0; f < kFrames; ++f) avi.write(wide(cv::Rect(2 * f, f, img.cols, img.rows)).clone());
  avi.release();
  // The same pan as a MOT-style sequence: one lossless image per frame, named in frame order.
  QVERIFY(QDir(tmp_.path()).mkpath("frames"));
  for (int f = 0; f < kFrames; ++f)
    QVERIFY(
        cv::imwrite(QString("%1/frames/%2.png").arg(tmp_.path()).arg(f + 1, 6, 10, QChar('0')).toStdString(),
                    wide(cv::Rect(2 * f, f, img.cols, img.rows))));
}

void TestTrackVideo::tracksFollowTheObjects() {
  const QString video = tmp_.path() + "/pan.avi";
  const QJsonObject tracked = runJson("track", {"source=" + video, "project=" + tmp_.path(), "name=track"});
  const QJsonObject plain =
      runJson("predict", {"source=" + video, "project=" + tmp_.path(), "name=plain", "conf=0.1"});
  const QJsonArray t = tracked["images"].toArray(), p = plain["images"].toArray();
  QCOMPARE(t.size(), kFrames);
  QCOMPARE(p.size(), kFrames);
  QCOMPARE(tracked["run_dir"].toString(), tmp_.path() + "/track");
  checkFollows(t, p);
  if (QTest::currentTestFailed()) return;
  ywb::track::ByteTracker replayed{ywb::loadTrackerOptions("botsort.yaml")};
  cv::VideoCapture frames(video.toStdString(), cv::CAP_FFMPEG);  // as ywb reads it (data/video_io.cpp)
  for (int f = 0; f < kFrames; ++f) {
    cv::Mat frame;
    QVERIFY(frames.read(frame));
    const std::vector<Box> tb = boxesOf(t[f].toObject()), pb = boxesOf(p[f].toObject());
    // Labels: the predict columns, then the id.
    QFile labels(QString("%1/track/labels/pan_%2.txt").arg(tmp_.path()).arg(f + 1));
    QVERIFY(labels.open(QIODevice::ReadOnly));
    const QByteArray text = labels.readAll().trimmed();
    const QList<QByteArray> lines = text.isEmpty() ? QList<QByteArray>() : text.split('\n');
    QCOMPARE(lines.size(), qsizetype(tb.size()));
    for (size_t k = 0; k < tb.size(); ++k) {
      const QList<QByteArray> cols = lines[qsizetype(k)].split(' ');
      QCOMPARE(cols.size(), 6);
      QCOMPARE(cols[0].toInt(), tb[k].cls);
      QCOMPARE(cols[5].toInt(), tb[k].id);
    }
    // The same tracker, run here on `ywb predict`'s detections at the same confidence (in their order) and
    // the frame, gives the same ids, classes, scores and boxes (clipped to the 256 x 224 frame): ywb track is
    // predict followed by one BoT-SORT per video, shown the video's frames.
    std::vector<ywb::DetBox> dets;
    for (const Box& d : pb) {
      ywb::DetBox b;
      b.x1 = d.x1, b.y1 = d.y1, b.x2 = d.x2, b.y2 = d.y2, b.score = d.score, b.cls = d.cls;
      dets.push_back(b);
    }
    const std::vector<ywb::DetBox> replay = replayed.update(dets, frame);
    QCOMPARE(replay.size(), tb.size());
    for (size_t k = 0; k < tb.size(); ++k) {
      QCOMPARE(tb[k].id, replay[k].track_id);
      QCOMPARE(tb[k].cls, replay[k].cls);
      QCOMPARE(tb[k].score, replay[k].score);
      QVERIFY(std::abs(tb[k].x1 - std::clamp(replay[k].x1, 0.f, 256.f)) < 1e-3);
      QVERIFY(std::abs(tb[k].y2 - std::clamp(replay[k].y2, 0.f, 224.f)) < 1e-3);
    }
  }
  QCOMPARE(tracked["videos"].toArray(), QJsonArray{tmp_.path() + "/track/pan.avi"});
  cv::VideoCapture out((tmp_.path() + "/track/pan.avi").toStdString(), cv::CAP_FFMPEG);
  QCOMPARE(int(out.get(cv::CAP_PROP_FRAME_COUNT)), kFrames);

  // The text output names each frame's ids.
  const CliResult text =
      ywbRun({"track", "weights=" + kWeights, "device=cpu", "source=" + video, "project=" + tmp_.path()});
  QCOMPARE(text.code, 0);
  QVERIFY2(text.out.contains("/pan.avi (frame 1/24): ") && text.out.contains(", ids 1 "),
           text.out.constData());
  QVERIFY2(text.out.contains("\nTracked with BoT-SORT (gmc_method sparseOptFlow)\n"), text.out.constData());
  QVERIFY2(text.out.contains("Results in " + tmp_.path().toUtf8() + "/track2"), text.out.constData());
}

void TestTrackVideo::anImageIsOneFrame() {
  const QJsonArray t = runJson("track", {"source=" + kImage, "project=" + tmp_.path(), "name=still",
                                         "save=false", "tracker=bytetrack.yaml"})["images"]
                           .toArray();
  const QJsonArray p =
      runJson("predict", {"source=" + kImage, "project=" + tmp_.path(), "name=stillp", "conf=0.1"})["images"]
          .toArray();
  QCOMPARE(t.size(), 1);
  int strong = 0;
  for (const Box& d : boxesOf(p[0].toObject())) strong += d.score >= 0.25f;
  const std::vector<Box> tb = boxesOf(t[0].toObject());
  QCOMPARE(int(tb.size()), strong);
  QVERIFY(strong >= 2);
  std::set<int> ids;
  for (const Box& b : tb) ids.insert(b.id);
  QCOMPARE(*ids.begin(), 1);
  QCOMPARE(*ids.rbegin(), strong);  // ids 1..n
}

// A folder of a video's frames saved as images: with persist=true one tracker follows the objects through
// the files in name order (ids continue, far fewer ids than boxes), the same as the tracker run here over
// `ywb predict`'s detections and the images; without it every image is a video of its own (ids 1..n in each).
void TestTrackVideo::aFrameFolderWithPersist() {
  const QString frames = tmp_.path() + "/frames";
  const QJsonArray seq = runJson("track", {"source=" + frames, "project=" + tmp_.path(), "name=seq",
                                           "persist=true", "save=false"})["images"]
                             .toArray();
  const QJsonArray alone =
      runJson("track", {"source=" + frames, "project=" + tmp_.path(), "name=alone", "save=false"})["images"]
          .toArray();
  const QJsonArray p = runJson("predict", {"source=" + frames, "project=" + tmp_.path(), "name=seqp",
                                           "conf=0.1", "save=false"})["images"]
                           .toArray();
  QCOMPARE(seq.size(), kFrames);
  QCOMPARE(alone.size(), kFrames);
  QCOMPARE(p.size(), kFrames);
  ywb::track::ByteTracker replayed{ywb::loadTrackerOptions("botsort.yaml")};
  std::set<int> ids;
  int total = 0, continued = 0;
  for (int f = 0; f < kFrames; ++f) {
    const QString path = seq[f].toObject()["image"].toString();
    QCOMPARE(path, QString("%1/%2.png").arg(frames).arg(f + 1, 6, 10, QChar('0')));  // in frame order
    std::vector<ywb::DetBox> dets;
    for (const Box& d : boxesOf(p[f].toObject())) {
      ywb::DetBox b;
      b.x1 = d.x1, b.y1 = d.y1, b.x2 = d.x2, b.y2 = d.y2, b.score = d.score, b.cls = d.cls;
      dets.push_back(b);
    }
    const std::vector<ywb::DetBox> replay = replayed.update(dets, cv::imread(path.toStdString()));
    const std::vector<Box> tb = boxesOf(seq[f].toObject());
    QCOMPARE(tb.size(), replay.size());
    for (size_t k = 0; k < tb.size(); ++k) {
      QCOMPARE(tb[k].id, replay[k].track_id);
      QVERIFY(std::abs(tb[k].x1 - std::clamp(replay[k].x1, 0.f, 256.f)) < 1e-3);
      ids.insert(tb[k].id);
    }
    total += int(tb.size());
    if (f > 0)
      for (const Box& a : boxesOf(seq[f - 1].toObject()))
        for (const Box& b : tb) continued += a.id == b.id && iou(a, b, kDx, kDy) > 0.3;
    // Without persist: a tracker per image, so its ids are 1..n (the detections at 0.25 or above).
    std::set<int> own;
    for (const Box& b : boxesOf(alone[f].toObject())) own.insert(b.id);
    if (!own.empty()) QCOMPARE(*own.rbegin(), int(own.size()));
  }
  QVERIFY2(
      continued >= 10 && int(ids.size()) * 2 < total,
      qPrintable(QString("%1 boxes, %2 continuations, %3 ids").arg(total).arg(continued).arg(ids.size())));
}

// BoT-SORT with ReID (with_reid: True, model: auto: the detector's own features at each detection's anchor)
// keeps the invariants above, with YOLO26's NMS-free one-to-one head and with its one-to-many head and NMS
// (each gives its detections' anchors).
void TestTrackVideo::reidFollowsTheObjects() {
  const QString video = tmp_.path() + "/pan.avi";
  QFile reid(tmp_.path() + "/reid-on.yaml");
  QVERIFY(reid.open(QIODevice::WriteOnly));
  reid.write("tracker_type: botsort\nwith_reid: True\nmodel: auto\n");
  reid.close();
  for (const QString end2end : {"end2end=true", "end2end=false"}) {
    const QJsonObject tracked = runJson("track", {"source=" + video, "project=" + tmp_.path(), "name=reid",
                                                  "save=false", "tracker=" + reid.fileName(), end2end});
    QCOMPARE(tracked["tracker"].toString(), QString("BoT-SORT (gmc_method sparseOptFlow, ReID)"));
    const QJsonArray t = tracked["images"].toArray();

    const QJsonArray p = runJson("predict", {"source=" + video, "project=" + tmp_.path(), "name=reidp",
                                             "save=false", "conf=0.1", end2end})["images"]
                             .toArray();
    checkFollows(t, p);
    if (QTest::currentTestFailed()) return;
  }
}

// Refused before anything is written: a tracker that is neither built in nor a file, a separate ReID model
// (not available), and tracker= for predict; none leaves a run folder. ReID with an exported model (no
// features) or with test-time augmentation (three passes) is refused with why.
void TestTrackVideo::badTrackerArguments() {
  const QString project = tmp_.path() + "/refused";
  const CliResult missing = ywbRun(
      {"track", "weights=" + kWeights, "source=" + kImage, "tracker=deepsort.yaml", "project=" + project});
  QCOMPARE(missing.code, 1);
  QVERIFY2(missing.err.contains("tracker=deepsort.yaml: no such file"), missing.err.constData());
  QFile reid(tmp_.path() + "/reid.yaml");
  QVERIFY(reid.open(QIODevice::WriteOnly));
  reid.write("tracker_type: botsort\nwith_reid: True\nmodel: yolo11n-cls.pt\n");
  reid.close();
  const CliResult bot = ywbRun({"track", "weights=" + kWeights, "source=" + kImage,
                                "tracker=" + reid.fileName(), "project=" + project});
  QCOMPARE(bot.code, 1);
  QVERIFY2(bot.err.contains("reid.yaml:3: model: 'yolo11n-cls.pt': a separate ReID network is not available"),
           bot.err.constData());
  const CliResult predict = ywbRun(
      {"predict", "weights=" + kWeights, "source=" + kImage, "tracker=bytetrack.yaml", "project=" + project});
  QCOMPARE(predict.code, 1);
  QVERIFY2(predict.err.contains("unknown argument 'tracker='"), predict.err.constData());
  QVERIFY(!QDir(project).exists());

  QVERIFY(reid.open(QIODevice::WriteOnly | QIODevice::Truncate));
  reid.write("with_reid: True\n");
  reid.close();
  QFile onnx(tmp_.path() + "/best.onnx");
  QVERIFY(onnx.open(QIODevice::WriteOnly));
  onnx.close();
  const CliResult exported = ywbRun({"track", "weights=" + onnx.fileName(), "source=" + kImage,
                                     "tracker=" + reid.fileName(), "project=" + tmp_.path() + "/refused2"});
  QCOMPARE(exported.code, 1);
  QVERIFY2(
      exported.err.contains("with_reid takes each object's appearance from the detector's own features") &&
          exported.err.contains("best.onnx') does not give"),
      exported.err.constData());
  const CliResult tta =
      ywbRun({"track", "weights=" + kWeights, "source=" + kImage, "tracker=" + reid.fileName(),
              "end2end=false", "augment=true", "project=" + tmp_.path() + "/refused2"});
  QCOMPARE(tta.code, 1);
  QVERIFY2(tta.err.contains("augment=true runs three"), tta.err.constData());
}

#else  // moc sees every slot; without videoio the whole case is skipped

void TestTrackVideo::initTestCase() {
  QSKIP("this build has no OpenCV videoio (libopencv-videoio-dev)");
}
void TestTrackVideo::tracksFollowTheObjects() {}
void TestTrackVideo::anImageIsOneFrame() {}
void TestTrackVideo::aFrameFolderWithPersist() {}
void TestTrackVideo::reidFollowsTheObjects() {}
void TestTrackVideo::badTrackerArguments() {}

#endif

QTEST_GUILESS_MAIN(TestTrackVideo)
#include "test_track_video.moc"
