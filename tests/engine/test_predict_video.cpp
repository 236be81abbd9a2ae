// `ywb predict` on videos, as a user runs it (real process, real video files written here by OpenCV).
// The judge is an invariant: a video's frame is an image, so predicting on a video must give, frame by frame,
// exactly what predicting on its frames gives, once those frames are decoded by the same decoder (OpenCV's
// FFmpeg backend, here in the test) and stored losslessly (PNG). Videos are written by OpenCV directly, not
// by the engine's writer, so the reading side is checked against an independent file.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "ywb/error.h"
#include "ywb/inference.h"

#ifdef YW_HAVE_OPENCV_VIDEOIO
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#endif

class TestPredictVideo : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase();
  void videoFramesEqualTheirImages();
  void folderMixesVideosAndImages();
  void badVideosAreReportedAndSkipped();

 private:
  QTemporaryDir tmp_;
};

#ifdef YW_HAVE_OPENCV_VIDEOIO

namespace {

const QString kWeights = QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt";
const QString kVal = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";
constexpr int kFrames = 8;
constexpr double kFps = 12;

QJsonObject predictJson(const QStringList& args) {
  const CliResult r =
      ywbRun(QStringList{"predict", "weights=" + kWeights, "device=cpu", "conf=0.1", "--json"} + args);
  if (r.code != 0) qWarning("ywb predict failed (%d): %s", r.code, r.err.constData());
  return QJsonDocument::fromJson(r.out).object();
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(missing " + path.toUtf8() + ")");
}

}  // namespace

void TestPredictVideo::initTestCase() {
  QVERIFY(tmp_.isValid());
  // Eight shapes validation images, stretched to 160 x 128 (not square: the letterbox has padding to
  // place), as the frames of a Motion-JPEG AVI (OpenCV's own writer) and an MPEG-4 MP4 (FFmpeg's).
  const QStringList files = QDir(kVal).entryList({"*.jpg"}, QDir::Files, QDir::Name).mid(0, kFrames);
  QCOMPARE(files.size(), kFrames);
  const cv::Size size(160, 128);
  QVERIFY(QDir().mkpath(tmp_.path() + "/media"));
  cv::VideoWriter avi((tmp_.path() + "/clip.avi").toStdString(), cv::CAP_OPENCV_MJPEG,
                      cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), kFps, size);
  cv::VideoWriter mp4((tmp_.path() + "/media/walk.mp4").toStdString(), cv::CAP_FFMPEG,
                      cv::VideoWriter::fourcc('m', 'p', '4', 'v'), kFps, size);
  QVERIFY(avi.isOpened() && mp4.isOpened());
  for (const QString& f : files) {
    cv::Mat img = cv::imread((kVal + "/" + f).toStdString()), frame;
    QVERIFY(!img.empty());
    cv::resize(img, frame, size);
    avi.write(frame);
    mp4.write(frame);
  }
  avi.release();
  mp4.release();
  QVERIFY(QFile::copy(kVal + "/" + files[0], tmp_.path() + "/media/still.jpg"));
}

// The AVI's frames, decoded here and stored as PNG, against the video itself: the same detections (class,
// confidence, box: the same numbers, as the same pixels went through the same model), the same label
// files, the annotated copy with every frame at the source's rate and size, and frames numbered from 1.
void TestPredictVideo::videoFramesEqualTheirImages() {
  const QString frames = tmp_.path() + "/frames";
  QVERIFY(QDir().mkpath(frames));
  cv::VideoCapture cap((tmp_.path() + "/clip.avi").toStdString(), cv::CAP_FFMPEG);
  QVERIFY(cap.isOpened());
  cv::Mat f;
  int n = 0;
  while (cap.read(f)) QVERIFY(cv::imwrite(QString("%1/f%2.png").arg(frames).arg(++n).toStdString(), f));
  QCOMPARE(n, kFrames);

  const QJsonObject video =
      predictJson({"source=" + tmp_.path() + "/clip.avi", "project=" + tmp_.path(), "name=video"});
  const QJsonObject still = predictJson({"source=" + frames, "project=" + tmp_.path(), "name=stills"});
  const QJsonArray v = video["images"].toArray(), s = still["images"].toArray();
  QCOMPARE(v.size(), kFrames);
  QCOMPARE(s.size(), kFrames);
  QVERIFY2(video["skipped"].toArray().isEmpty(), qPrintable(QJsonDocument(video).toJson()));
  int boxes = 0;
  for (int k = 0; k < kFrames; ++k) {
    const QJsonObject vf = v[k].toObject(), sf = s[k].toObject();
    QCOMPARE(vf["image"].toString(), tmp_.path() + "/clip.avi");
    QCOMPARE(vf["frame"].toInt(), k + 1);
    QCOMPARE(vf["frames"].toInt(), kFrames);
    QCOMPARE(sf["image"].toString(), QString("%1/f%2.png").arg(frames).arg(k + 1));
    QVERIFY(!sf.contains("frame"));
    QCOMPARE(vf["detections"].toArray(), sf["detections"].toArray());
    boxes += int(vf["detections"].toArray().size());
    QCOMPARE(readAll(QString("%1/video/labels/clip_%2.txt").arg(tmp_.path()).arg(k + 1)),
             readAll(QString("%1/stills/labels/f%2.txt").arg(tmp_.path()).arg(k + 1)));
  }
  QVERIFY2(boxes > kFrames, "too few detections for the comparison to mean anything");
  // readVideoFrame (what the GUI shows a frame with): frame k is the k-th frame decoded above, in RGB.
  for (const int k : {1, 4, kFrames}) {
    const ywb::RgbImage rgb = ywb::readVideoFrame((tmp_.path() + "/clip.avi").toStdString(), k);
    cv::Mat back = cv::imread(QString("%1/f%2.png").arg(frames).arg(k).toStdString());
    cv::cvtColor(back, back, cv::COLOR_BGR2RGB);
    QCOMPARE(rgb.width, back.cols);
    QCOMPARE(rgb.height, back.rows);
    QVERIFY(std::equal(rgb.pixels.begin(), rgb.pixels.end(), back.data));
  }
  QVERIFY_THROWS_EXCEPTION(ywb::Error,
                           ywb::readVideoFrame((tmp_.path() + "/clip.avi").toStdString(), kFrames + 1));

  const QString annotated = tmp_.path() + "/video/clip.avi";
  QCOMPARE(video["videos"].toArray(), QJsonArray{annotated});
  cv::VideoCapture out(annotated.toStdString(), cv::CAP_FFMPEG);
  QVERIFY(out.isOpened());
  QCOMPARE(int(out.get(cv::CAP_PROP_FRAME_COUNT)), kFrames);
  QCOMPARE(out.get(cv::CAP_PROP_FPS), kFps);
  QCOMPARE(int(out.get(cv::CAP_PROP_FRAME_WIDTH)), 160);
  QCOMPARE(int(out.get(cv::CAP_PROP_FRAME_HEIGHT)), 128);
  QVERIFY(!QFile::exists(tmp_.path() + "/video/clip.part.avi"));  // the temporary name is gone
  QVERIFY(
      !QFileInfo::exists(tmp_.path() + "/video/weights"));  // a training run's folder, not a predict run's

  // vid_stride=3: frames 3 and 6 (Ultralytics' choice: every third, counted from 1), named by the video's
  // own numbers and equal to those frames' images; 7 and 8 make no third; save=false: labels only.
  const QJsonObject strided = predictJson({"source=" + tmp_.path() + "/clip.avi", "project=" + tmp_.path(),
                                           "name=strided", "vid_stride=3", "save=false"});
  const QJsonArray st = strided["images"].toArray();
  QCOMPARE(st.size(), 2);
  for (int i = 0; i < 2; ++i) {
    const int frame = 3 * (i + 1);
    QCOMPARE(st[i].toObject()["frame"].toInt(), frame);
    QCOMPARE(st[i].toObject()["detections"].toArray(), s[frame - 1].toObject()["detections"].toArray());
  }
  QVERIFY(strided["skipped"].toArray().isEmpty());
  QVERIFY(strided["videos"].toArray().isEmpty());
  QCOMPARE(QDir(tmp_.path() + "/strided").entryList(QDir::Files), QStringList());  // no annotated copy
  QCOMPARE(QDir(tmp_.path() + "/strided/labels").entryList(QDir::Files),
           (QStringList{"clip_3.txt", "clip_6.txt"}));
  const QJsonObject too_far = predictJson(
      {"source=" + tmp_.path() + "/clip.avi", "project=" + tmp_.path(), "name=far", "vid_stride=9"});
  QCOMPARE(too_far["images"].toArray().size(), 0);
  QVERIFY2(too_far["skipped"].toArray()[0].toString().endsWith(
               "clip.avi: its 8 frame(s) are fewer than vid_stride=9: none predicted"),
           qPrintable(QJsonDocument(too_far).toJson()));

  // The text output: one line per frame, "path (frame k/n): counts (ms)".
  const CliResult text =
      ywbRun({"predict", "weights=" + kWeights, "device=cpu", "conf=0.1",
              "source=" + tmp_.path() + "/clip.avi", "project=" + tmp_.path(), "name=text"});
  QCOMPARE(text.code, 0);
  for (int k = 1; k <= kFrames; ++k)
    QVERIFY2(text.out.contains(QString("/clip.avi (frame %1/%2): ").arg(k).arg(kFrames).toUtf8()),
             text.out.constData());
  QVERIFY2(text.out.contains("(annotated images and videos, labels/*.txt)"), text.out.constData());
}

// A folder holding an MP4 (FFmpeg's MPEG-4 encoder: the FFmpeg decoder path) and an image: every frame of
// the one and the other, in the folder's order, and the MP4's frames equal to their PNGs.
void TestPredictVideo::folderMixesVideosAndImages() {
  const QJsonObject r =
      predictJson({"source=" + tmp_.path() + "/media", "project=" + tmp_.path(), "name=mixed"});
  const QJsonArray all = r["images"].toArray();
  QCOMPARE(all.size(), 1 + kFrames);
  QCOMPARE(all[0].toObject()["image"].toString(), tmp_.path() + "/media/still.jpg");
  QVERIFY(!all[0].toObject().contains("frame"));
  QCOMPARE(all[1].toObject()["frame"].toInt(), 1);
  QCOMPARE(all[kFrames].toObject()["frame"].toInt(), kFrames);

  cv::VideoCapture cap((tmp_.path() + "/media/walk.mp4").toStdString(), cv::CAP_FFMPEG);
  const QString frames = tmp_.path() + "/mp4frames";
  QVERIFY(QDir().mkpath(frames));
  cv::Mat f;
  for (int k = 1; cap.read(f); ++k)
    QVERIFY(cv::imwrite(QString("%1/g%2.png").arg(frames).arg(k).toStdString(), f));
  const QJsonArray s =
      predictJson({"source=" + frames, "project=" + tmp_.path(), "name=mp4stills"})["images"].toArray();
  QCOMPARE(s.size(), kFrames);
  for (int k = 0; k < kFrames; ++k)
    QCOMPARE(all[k + 1].toObject()["detections"].toArray(), s[k].toObject()["detections"].toArray());
  QVERIFY(QFile::exists(tmp_.path() + "/mixed/walk.avi"));
  QVERIFY(QFile::exists(tmp_.path() + "/mixed/still.jpg"));
}

// Bad videos are named with the reason and skipped, as unreadable images are; the rest of the source is
// still predicted, and no annotated copy is left for them.
void TestPredictVideo::badVideosAreReportedAndSkipped() {
  const QString dir = tmp_.path() + "/bad";
  QVERIFY(QDir().mkpath(dir));
  QFile junk(dir + "/junk.mp4");
  QVERIFY(junk.open(QIODevice::WriteOnly));
  junk.write("this is not a video\n");
  junk.close();
  QVERIFY(QFile::copy(kVal + "/val_00001.jpg", dir + "/ok.jpg"));
  // The AVI cut at 60%: its header (written first) still declares every frame; FFmpeg decodes the frames
  // before the cut up to the first damaged one and stops there.
  QFile whole(tmp_.path() + "/clip.avi"), cut(dir + "/cut.avi");
  QVERIFY(whole.open(QIODevice::ReadOnly) && cut.open(QIODevice::WriteOnly));
  cut.write(whole.read(whole.size() * 6 / 10));
  cut.close();
  const QJsonObject r = predictJson({"source=" + dir, "project=" + tmp_.path(), "name=badrun"});
  const QJsonArray images = r["images"].toArray();
  int cut_frames = 0;
  for (const auto& v : images) cut_frames += int(v.toObject()["image"].toString().endsWith("cut.avi"));
  QVERIFY2(cut_frames > 0 && cut_frames < kFrames, qPrintable(QString::number(cut_frames)));
  QCOMPARE(images.size(), cut_frames + 1);  // and ok.jpg
  QStringList skipped;
  for (const auto& v : r["skipped"].toArray()) skipped << v.toString();
  skipped.sort();
  QCOMPARE(skipped.size(), 2);
  QVERIFY2(
      skipped[0].endsWith(QString("cut.avi: frames %1 to %2 do not decode (the video's header declares %2)")
                              .arg(cut_frames + 1)
                              .arg(kFrames)),
      qPrintable(skipped[0]));
  QVERIFY2(skipped[1].contains("junk.mp4': FFmpeg cannot open it"), qPrintable(skipped[1]));
  // The frames that decoded are in the annotated copy; the junk video left no file, temporary or not.
  QCOMPARE(QDir(tmp_.path() + "/badrun").entryList({"*.avi"}, QDir::Files), QStringList{"cut.avi"});
  cv::VideoCapture back((tmp_.path() + "/badrun/cut.avi").toStdString(), cv::CAP_FFMPEG);
  QCOMPARE(int(back.get(cv::CAP_PROP_FRAME_COUNT)), cut_frames);

  // A source that is neither an image, a video nor a folder names both lists of extensions.
  QFile doc(dir + "/notes.doc");
  QVERIFY(doc.open(QIODevice::WriteOnly));
  doc.close();
  const CliResult e = ywbRun({"predict", "weights=" + kWeights, "device=cpu", "source=" + dir + "/notes.doc",
                              "project=" + tmp_.path()});
  QCOMPARE(e.code, 1);
  QVERIFY2(e.err.contains("a video (asf, avi, gif, m4v, mkv, mov, mp4, mpeg, mpg, ts, wmv, webm)"),
           e.err.constData());
}

#else  // moc sees every slot; without videoio the whole case is skipped

void TestPredictVideo::initTestCase() {
  QSKIP("this build has no OpenCV videoio (libopencv-videoio-dev)");
}
void TestPredictVideo::videoFramesEqualTheirImages() {}
void TestPredictVideo::folderMixesVideosAndImages() {}
void TestPredictVideo::badVideosAreReportedAndSkipped() {}

#endif

QTEST_GUILESS_MAIN(TestPredictVideo)
#include "test_predict_video.moc"
