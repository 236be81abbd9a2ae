// The Predictions tab on a source without labels: four shapes images and a three-frame video made from
// three of them, predicted with Ultralytics 8.3's yolov8n-shapes.pt from the tab's Predict button. The judge
// is the engine itself called directly (ywb::predictImages, the same options): the tab must list every image
// and frame in source order with exactly its detections, show a frame as the video's own pixels with the
// boxes above the confidence slider, and closing the tab mid-run must stop the run.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "box_image_view.h"
#include "predictions_tab.h"
#include "support/screenshots.h"
#include "support/shapes_copy.h"
#include "worker_threads.h"
#include "ywb/export.h"
#include "ywb/inference.h"

#ifdef YW_HAVE_OPENCV_VIDEOIO
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#endif

namespace {

const QString kShapes = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes";
const QString kWeights = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";

}  // namespace

class TestPredictSource : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void predictsImagesAndVideoFrames() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString media = tmp.path() + "/media";
    QVERIFY(QDir().mkpath(media));
    const QStringList val =
        QDir(kShapes + "/images/val").entryList({"*.jpg", "*.png"}, QDir::Files, QDir::Name);
    QVERIFY(val.size() >= 4);
    for (int k = 0; k < 4; ++k) QVERIFY(QFile::copy(kShapes + "/images/val/" + val[k], media + "/" + val[k]));
    int frames = 0;
#ifdef YW_HAVE_OPENCV_VIDEOIO
    {  // "zclip.avi" sorts after the images
      cv::VideoWriter out;
      for (int k = 0; k < 3; ++k) {
        cv::Mat f = cv::imread((media + "/" + val[k]).toStdString());
        cv::resize(f, f, cv::Size(128, 128));
        if (!out.isOpened())
          QVERIFY(out.open((media + "/zclip.avi").toStdString(), cv::CAP_OPENCV_MJPEG,
                           cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, f.size()));
        out.write(f);
      }
    }
    frames = 3;
#endif
    ywb::gui::PredictionsTab tab;
    tab.resize(1280, 720);
    tab.show();
    tab.setWeights(kWeights);
    tab.setSource(media);
    QSignalSpy done(&tab, &ywb::gui::PredictionsTab::predicted);
    tab.findChild<QPushButton*>("predictButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 120000);
    auto* summary = tab.findChild<QLabel*>("predSummary");
    QVERIFY2(done.last().first().toBool(), qPrintable(summary->text()));
    QVERIFY2(summary->text().startsWith(QString("4 images and %1 video frames predicted").arg(frames)),
             qPrintable(summary->text()));

    // The engine on the same source and options, directly.
    ywb::PredictOptions o;
    o.weights = kWeights.toStdString();
    o.source = media.toStdString();
    o.conf = ywb::ValOptions{}.conf;
    o.iou = 0.7;
    const ywb::PredictReport want = ywb::predictImages(o);
    const auto& got = tab.report().detections;
    QCOMPARE(got.size(), size_t(4 + frames));
    QCOMPARE(want.images.size(), got.size());
    auto* list = tab.findChild<QListWidget*>("predImages");
    QCOMPARE(list->count(), int(got.size()));
    int boxes = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      QCOMPARE(got[i].path, want.images[i].path);
      QCOMPARE(got[i].frame, want.images[i].frame);
      QCOMPARE(got[i].boxes.size(), want.images[i].boxes.size());
      for (size_t k = 0; k < got[i].boxes.size(); ++k) {
        QCOMPARE(got[i].boxes[k].score, want.images[i].boxes[k].score);
        QCOMPARE(got[i].boxes[k].x1, want.images[i].boxes[k].x1);
        QCOMPARE(got[i].boxes[k].cls, want.images[i].boxes[k].cls);
      }
      boxes += int(got[i].boxes.size());
      const QString name = i < 4 ? val[int(i)] : QString("zclip.avi  frame %1/3").arg(i - 3);
      QCOMPARE(list->item(int(i))->text(), name);
    }
    QVERIFY2(boxes >= 4, "a trained detector finds the shapes");
    // The class table counts the detections at the slider's confidence: all first, then each class found.
    int at_conf = 0, shown_row = 0, most = -1;
    for (size_t i = 0; i < got.size(); ++i) {
      int n = 0;
      for (const auto& b : got[i].boxes) n += b.score >= tab.confidence();
      at_conf += n;
      if (n > most) most = n, shown_row = int(i);
    }
    auto* table = tab.findChild<QTableWidget*>("classApTable");
    QCOMPARE(table->columnCount(), 3);
    QCOMPARE(table->item(0, 0)->text(), QString("all"));
    QCOMPARE(table->item(0, 2)->text().toInt(), at_conf);
    int per_class = 0;
    for (int r = 1; r < table->rowCount(); ++r) per_class += table->item(r, 2)->text().toInt();
    QCOMPARE(per_class, at_conf);
    QVERIFY2(summary->text().contains(QString(": %1 detections at conf 0.25").arg(at_conf)),
             qPrintable(summary->text()));

    // The viewer: the image shown and the boxes at or above the slider's confidence.
    auto* viewer = tab.findChild<ywb::gui::BoxImageView*>("predViewer");
    const auto above = [&](size_t i) {
      int n = 0;
      for (const auto& b : got[i].boxes) n += b.score >= tab.confidence();
      return n;
    };
    list->setCurrentRow(1);
    QCOMPARE(viewer->image().size(), QImage(media + "/" + val[1]).size());
    QCOMPARE(viewer->boxCount(), above(1));
#ifdef YW_HAVE_OPENCV_VIDEOIO
    // Frame 2 of the video is shown as the video holds it (decoded here independently, in RGB).
    list->setCurrentRow(5);
    cv::VideoCapture cap((media + "/zclip.avi").toStdString(), cv::CAP_FFMPEG);
    cv::Mat f;
    QVERIFY(cap.read(f) && cap.read(f));
    QCOMPARE(viewer->image().width(), f.cols);
    const cv::Vec3b bgr = f.at<cv::Vec3b>(40, 60);
    QCOMPARE(viewer->image().pixelColor(60, 40), QColor(bgr[2], bgr[1], bgr[0]));
    QCOMPARE(viewer->boxCount(), above(5));
#endif
    list->setCurrentRow(shown_row);  // the picture with the most boxes, for the screenshot
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/predictions_source.png"));

    // Toggling end-to-end runs the prediction again (what is shown), not a validation: for this YOLOv8 it
    // changes nothing, the same detections come back.
    tab.findChild<QCheckBox*>("predEnd2End")->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 60000);
    QVERIFY(done.last().first().toBool());
    QCOMPARE(tab.report().detections.size(), want.images.size());
    QCOMPARE(tab.report().detections[0].boxes.size(), want.images[0].boxes.size());

    // Ticking test-time augmentation predicts again with augment=true: the engine's augmented detections
    // (run here directly), and the summary says what ran.
    tab.findChild<QCheckBox*>("predAugment")->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 3, 60000);
    QVERIFY(done.last().first().toBool());
    o.augment = true;
    const ywb::PredictReport tta = ywb::predictImages(o);
    QVERIFY(tta.augmented);
    const auto& got_tta = tab.report().detections;
    QCOMPARE(got_tta.size(), tta.images.size());
    bool differs = false;
    for (size_t i = 0; i < got_tta.size(); ++i) {
      QCOMPARE(got_tta[i].boxes.size(), tta.images[i].boxes.size());
      for (size_t k = 0; k < got_tta[i].boxes.size(); ++k)
        QCOMPARE(got_tta[i].boxes[k].score, tta.images[i].boxes[k].score);
      differs = differs || got_tta[i].boxes.size() != want.images[i].boxes.size();
    }
    QVERIFY2(differs, "the augmented passes add detections");
    QVERIFY2(summary->text().contains("Test-time augmented: 3 passes per image"),
             qPrintable(summary->text()));
    list->setCurrentRow(shown_row);
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/predictions_tta.png"));

    // Ticking "track objects" predicts again as ywb track does: the engine's tracks (run here directly at
    // the tracking confidence), each box with its id, the summary counting the objects (distinct ids per
    // video or image), and the viewer labelling each tracked box "id:N".
    tab.findChild<QCheckBox*>("predTrack")->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 4, 60000);
    QVERIFY(done.last().first().toBool());
    // The slider moved down to the tracking confidence, so every track (a dipping one too) is drawn.
    QCOMPARE(tab.confidence(), ywb::kTrackConf);
    o.track = true;
    o.conf = ywb::kTrackConf;
    const ywb::PredictReport tracks = ywb::predictImages(o);
    const auto& got_tracks = tab.report().detections;
    QCOMPARE(got_tracks.size(), tracks.images.size());
    std::set<std::pair<std::string, int>> objects;
    int tracked_row = -1;
    for (size_t i = 0; i < got_tracks.size(); ++i) {
      QCOMPARE(got_tracks[i].boxes.size(), tracks.images[i].boxes.size());
      for (size_t k = 0; k < got_tracks[i].boxes.size(); ++k) {
        const ywb::DetBox& b = got_tracks[i].boxes[k];
        QCOMPARE(b.track_id, tracks.images[i].boxes[k].track_id);
        QCOMPARE(b.score, tracks.images[i].boxes[k].score);
        QVERIFY(b.track_id > 0);
        objects.insert({got_tracks[i].path, b.track_id});
        if (b.score >= tab.confidence() && tracked_row < 0) tracked_row = int(i);
      }
    }
    QVERIFY2(tracked_row >= 0, "some track is shown at the slider's confidence");
    // BoT-SORT unless chosen otherwise (Ultralytics' default tracker).
    QCOMPARE(tab.findChild<QComboBox*>("predTracker")->currentText(), QString("BoT-SORT"));
    QVERIFY2(
        summary->text().contains(QString("Tracked with BoT-SORT: %1 objects followed.").arg(objects.size())),
        qPrintable(summary->text()));
    list->setCurrentRow(tracked_row);
    QCOMPARE(viewer->boxCount(), int(got_tracks[size_t(tracked_row)].boxes.size()));  // every track drawn
    for (const auto& vb : viewer->boxes()) QVERIFY2(vb.label.startsWith("id:"), qPrintable(vb.label));
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/predictions_track.png"));

    // Choosing BoT-SORT + ReID (with_reid, model: auto) while test-time augmentation is ticked is refused
    // with the engine's reason (ReID reads one pass's features); unticking it tracks with ReID: the engine's
    // tracks.
    auto* tracker = tab.findChild<QComboBox*>("predTracker");
    tracker->setCurrentIndex(tracker->findText("BoT-SORT + ReID"));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 5, 60000);
    QVERIFY(!done.last().first().toBool());
    QVERIFY2(summary->text().contains("augment=true runs three"), qPrintable(summary->text()));
    tab.findChild<QCheckBox*>("predAugment")->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 6, 60000);
    QVERIFY2(done.last().first().toBool(), qPrintable(summary->text()));
    o.augment = false;
    o.tracker.with_reid = true;
    const ywb::PredictReport reid = ywb::predictImages(o);
    const auto& got_reid = tab.report().detections;
    QCOMPARE(got_reid.size(), reid.images.size());
    for (size_t i = 0; i < got_reid.size(); ++i) {
      QCOMPARE(got_reid[i].boxes.size(), reid.images[i].boxes.size());
      for (size_t k = 0; k < got_reid[i].boxes.size(); ++k)
        QCOMPARE(got_reid[i].boxes[k].track_id, reid.images[i].boxes[k].track_id);
    }
    QVERIFY2(summary->text().contains("Tracked with BoT-SORT + ReID: "), qPrintable(summary->text()));
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/predictions_reid.png"));

    // Choosing ByteTrack tracks again with it: the engine's ByteTrack tracks, and the summary names it.
    tracker->setCurrentIndex(tracker->findText("ByteTrack"));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 7, 60000);
    QVERIFY(done.last().first().toBool());
    o.tracker = ywb::loadTrackerOptions("bytetrack.yaml");
    const ywb::PredictReport byte = ywb::predictImages(o);
    const auto& got_byte = tab.report().detections;
    QCOMPARE(got_byte.size(), byte.images.size());
    for (size_t i = 0; i < got_byte.size(); ++i) {
      QCOMPARE(got_byte[i].boxes.size(), byte.images[i].boxes.size());
      for (size_t k = 0; k < got_byte[i].boxes.size(); ++k) {
        QCOMPARE(got_byte[i].boxes[k].track_id, byte.images[i].boxes[k].track_id);
        QCOMPARE(got_byte[i].boxes[k].x1, byte.images[i].boxes[k].x1);
      }
    }
    QVERIFY2(summary->text().contains("Tracked with ByteTrack: "), qPrintable(summary->text()));

    // "one sequence": one tracker over all the files (persist=true), as the engine gives it; the ids go on
    // from file to file, so they differ from the tracker-per-file ids above (ByteTrack still chosen; there
    // each image starts at 1).
    tab.findChild<QCheckBox*>("predPersist")->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 8, 60000);
    QVERIFY(done.last().first().toBool());
    o.persist = true;
    const ywb::PredictReport seq = ywb::predictImages(o);
    const auto& got_seq = tab.report().detections;
    QCOMPARE(got_seq.size(), seq.images.size());
    bool other_ids = false;
    for (size_t i = 0; i < got_seq.size(); ++i) {
      QCOMPARE(got_seq[i].boxes.size(), seq.images[i].boxes.size());
      other_ids = other_ids || got_seq[i].boxes.size() != byte.images[i].boxes.size();
      for (size_t k = 0; k < got_seq[i].boxes.size(); ++k) {
        QCOMPARE(got_seq[i].boxes[k].track_id, seq.images[i].boxes[k].track_id);
        other_ids = other_ids || (k < byte.images[i].boxes.size() &&
                                  got_seq[i].boxes[k].track_id != byte.images[i].boxes[k].track_id);
      }
    }
    QVERIFY2(other_ids, "one tracker over the files numbers the objects on");

    // A missing source fails with the engine's message, and says so.
    tab.setSource(tmp.path() + "/nothing-here");
    tab.predict();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 9, 60000);
    QVERIFY(!done.last().first().toBool());
    QVERIFY2(summary->text().startsWith("Prediction failed:") && summary->text().contains("nothing-here"),
             qPrintable(summary->text()));
  }

  // An exported ONNX graph in the tab, as a user picks best.onnx: validated through OpenCV DNN, the summary
  // names the runtime, and the numbers are those of the weights it came from (the engine's LibTorch
  // validation, called directly) within the rounding of a second runtime.
  void validatesAnExportedGraph() {
    if (!ywb::onnxExportAvailable() || !ywb::onnxVerificationAvailable()) QSKIP("needs ONNX and OpenCV DNN");
    QTemporaryDir tmp;
    const std::string data = copyShapesDataset(tmp.path().toStdString()) + "/data.yaml";
    ywb::ExportOptions e;
    e.weights = kWeights.toStdString();
    e.formats = {"onnx"};
    e.out_dir = tmp.path().toStdString();
    e.name = "best";
    e.dynamic = true;
    e.verify = false;
    const std::string onnx = ywb::exportWeights(e).files.at(0).path;
    ywb::gui::PredictionsTab tab;
    tab.resize(1280, 720);
    tab.show();
    tab.setWeights(QString::fromStdString(onnx));
    tab.setDataset(QString::fromStdString(data));
    QSignalSpy validated(&tab, &ywb::gui::PredictionsTab::validated);
    tab.validate();
    QTRY_VERIFY_WITH_TIMEOUT(validated.count() == 1, 120000);
    auto* summary = tab.findChild<QLabel*>("predSummary");
    QVERIFY2(validated.last().first().toBool(), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains("Run by OpenCV DNN 4."), qPrintable(summary->text()));
    ywb::ValOptions o;
    o.data = data;
    o.weights = kWeights.toStdString();
    o.workers = 2;
    const ywb::ValReport ref = ywb::validateWeights(o);
    QCOMPARE(tab.report().metrics.images, ref.metrics.images);
    QVERIFY2(std::abs(tab.report().metrics.map - ref.metrics.map) <= 1e-3,
             qPrintable(QString("%1 vs %2").arg(tab.report().metrics.map).arg(ref.metrics.map)));
    QCOMPARE(tab.report().detections.size(), size_t(64));  // every image, for the viewer
    QTest::qWait(100);
    QVERIFY(tab.grab().save(shotsDir() + "/predictions_onnx.png"));
  }

  void closingTheTabStopsThePrediction() {
    // 64 validation images; the tab is destroyed once the first is listed: the run stops at the next image
    // and the destructor waits for it, so no job is left running.
    auto* tab = new ywb::gui::PredictionsTab;
    tab->setWeights(kWeights);
    tab->setSource(kShapes + "/images/val");
    tab->predict();
    auto* list = tab->findChild<QListWidget*>("predImages");
    QTRY_VERIFY_WITH_TIMEOUT(list->count() >= 1, 120000);
    QVERIFY(list->count() < 64);
    delete tab;
    QCOMPARE(ywb::gui::WorkerThreads::running(), 0);
  }
};

QTEST_MAIN(TestPredictSource)
#include "test_predict_source.moc"
