// What `ywb predict` and `ywb val` write besides metrics: label files of detections (val's save_txt),
// save_crop's crops (Ultralytics' save_one_box geometry and names) and the drawing options line_width,
// show_labels and show_conf. Expected regions are worked out by hand from the rule in
// train/detection_crops.h; crops are compared with the original image's pixels.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "cli_runner.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "support/error_of.h"
#include "support/shapes_copy.h"
#include "train/detection_crops.h"
#include "train/detection_labels.h"
#include "ywb/error.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace {

const std::string kUltra = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics";

// Pixels of `a` that differ from `b`, and how many of them lie outside `band`.
std::pair<int, int> changed(const cv::Mat& a, const cv::Mat& b, const cv::Rect& band) {
  int n = 0, outside = 0;
  for (int y = 0; y < a.rows; ++y)
    for (int x = 0; x < a.cols; ++x)
      if (a.at<cv::Vec3b>(y, x) != b.at<cv::Vec3b>(y, x)) ++n, outside += !band.contains({x, y});
  return {n, outside};
}

std::string readFile(const std::string& path) {
  QFile f(QString::fromStdString(path));
  return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

}  // namespace

class TestPredictOutputs : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // By hand: box (10.4, 20.6)-(50.2, 60.9): centre (30.3, 40.75), size 39.8 x 40.3 grown to 50.596 x
  // 51.106; corners 5.002 -> 5, 55.598 -> 55, 15.197 -> 15, 66.303 -> 66. At the image's corner (0, 0)-(5,
  // 5): 15.1 wide, -5.05 -> 0 (clipped), 10.05 -> 10. Outside a 100 x 80 image: empty.
  void cropRegionIsUltralyticsSaveOneBox() {
    QCOMPARE(ywb::cropRect({10.4f, 20.6f, 50.2f, 60.9f, 0.9f, 0}, 100, 80), cv::Rect(5, 15, 50, 51));
    QCOMPARE(ywb::cropRect({0, 0, 5, 5, 0.9f, 0}, 100, 80), cv::Rect(0, 0, 10, 10));
    QCOMPARE(ywb::cropRect({10, 70, 90, 79, 0.9f, 0}, 100, 80).br().y, 80);  // 74.5 + 9.59 clipped to 80
    QCOMPARE(ywb::cropRect({200, 200, 210, 210, 0.9f, 0}, 100, 80).area(), 0);
  }

  // Crops are their region of the image (the file is that region encoded alone, JPEG quality 95), named
  // <stem>.jpg, <stem>2.jpg, ... per class folder, and a '/' in a class name does not make a folder.
  void cropsHoldTheirRegion() {
    QTemporaryDir dir;
    cv::Mat img(60, 80, CV_8UC3);
    cv::randu(img, 0, 255);
    cv::rectangle(img, {20, 10, 30, 25}, cv::Scalar(30, 200, 90), cv::FILLED);
    const std::vector<ywb::DetBox> boxes = {{20, 10, 50, 35, 0.9f, 1},
                                            {0, 0, 10, 10, 0.8f, 1},
                                            {40, 30, 79, 59, 0.7f, 0},
                                            {100, 100, 120, 120, 0.6f, 1}};
    const std::vector<std::string> names = {"a/b", "shape"};
    const std::vector<std::string> files =
        ywb::saveCrops(img, boxes, names, dir.path().toStdString() + "/crops", "img");
    const std::string base = dir.path().toStdString() + "/crops/";
    QCOMPARE(files, (std::vector<std::string>{base + "shape/img.jpg", base + "shape/img2.jpg",
                                              base + "a_b/img.jpg"}));
    for (size_t k = 0; k < files.size(); ++k) {
      const cv::Rect r = ywb::cropRect(boxes[k], img.cols, img.rows);
      QCOMPARE(ywb::decodeJpeg(readFile(files[k]), files[k]).size(), r.size());
      QVERIFY(readFile(files[k]) == ywb::encodeJpeg(img(r).clone(), 95));  // the region, and nothing drawn
    }
  }

  // line_width 1 without labels touches only a band around the box's outline; width 5 touches more; the
  // label without its score is narrower than with it; the automatic width follows the image (side / 320).
  void drawingFollowsTheStyle() {
    const cv::Mat grey(200, 200, CV_8UC3, cv::Scalar::all(128));
    const std::vector<ywb::DrawnBox> box = {{50, 60, 150, 160, 0, 0.87f}};
    const cv::Rect outline(47, 57, 107, 107);  // the box's outline, 3 px either side
    auto draw = [&](const ywb::BoxStyle& s) {
      cv::Mat m = grey.clone();
      ywb::drawBoxes(m, box, {"ring"}, true, s);
      return m;
    };
    ywb::BoxStyle thin;
    thin.line_width = 1;
    thin.labels = false;
    const auto [n1, out1] = changed(draw(thin), grey, outline);
    QCOMPARE(out1, 0);
    QVERIFY2(n1 >= 4 * 100 && n1 < 4 * 100 * 3, QByteArray::number(n1));  // about the perimeter, 1-3 px wide
    thin.line_width = 5;
    const int n5 = changed(draw(thin), grey, outline).first;
    QVERIFY2(n5 > 2 * n1, (QByteArray::number(n5) + " against " + QByteArray::number(n1)));
    ywb::BoxStyle with_score, without_score;
    without_score.scores = false;
    const int label = changed(draw(with_score), grey, outline).second;
    const int name_only = changed(draw(without_score), grey, outline).second;
    QVERIFY2(name_only > 0 && name_only < label,
             (QByteArray::number(name_only) + " " + QByteArray::number(label)));
    // Automatic width on a 640-px image: 640 / 320 = 2 px, the same picture as line_width=2.
    const cv::Mat big(640, 640, CV_8UC3, cv::Scalar::all(128));
    ywb::BoxStyle automatic, two;
    automatic.labels = two.labels = false;
    two.line_width = 2;
    cv::Mat a = big.clone(), b = big.clone();
    ywb::drawBoxes(a, box, {"ring"}, true, automatic);
    ywb::drawBoxes(b, box, {"ring"}, true, two);
    QCOMPARE(changed(a, b, cv::Rect(0, 0, 640, 640)).first, 0);
    QVERIFY(changed(a, big, cv::Rect(0, 0, 640, 640)).first > n1);
  }

  // A label line by hand: box (10, 20)-(50, 80) in a 200 x 100 image is centre (30, 50) / (200, 100) =
  // (0.15, 0.5), size (40, 60) / (200, 100) = (0.2, 0.6); confidence to five decimals.
  void labelLinesAndUniqueStems() {
    const std::vector<ywb::DetBox> boxes = {{10, 20, 50, 80, 0.876543f, 3}};
    QCOMPARE(ywb::yoloLabelText(boxes, 200, 100, false),
             std::string("3 0.150000 0.500000 0.200000 0.600000\n"));
    QCOMPARE(ywb::yoloLabelText(boxes, 200, 100, true),
             std::string("3 0.150000 0.500000 0.200000 0.600000 0.87654\n"));
    ywb::UniqueStems stems;
    QCOMPARE(stems("a/x.jpg"), std::string("x"));
    QCOMPARE(stems("b/x.jpg"), std::string("x_2"));
    QCOMPARE(stems("c/x.png"), std::string("x_3"));
    QCOMPARE(stems("y.jpg"), std::string("y"));
  }

  // val save_txt: one file per validated image, each line one of its detections (all above val's conf),
  // read back to the detection's box within the six decimals printed.
  void valWritesEachImagesDetections() {
    QTemporaryDir dir;
    ywb::ValOptions o;
    o.data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    o.weights = kUltra + "/yolov8n-shapes.pt";
    o.workers = 0;
    o.keep_detections = true;
    o.labels_dir = dir.path().toStdString() + "/labels";
    o.save_conf = true;
    const ywb::ValReport r = ywb::validateWeights(o);
    QCOMPARE(r.detections.size(), size_t(64));
    size_t lines = 0;
    for (const auto& d : r.detections) {
      const std::string file = o.labels_dir + "/" + fs::path(d.path).stem().string() + ".txt";
      QTextStream in(QByteArray::fromStdString(readFile(file)));
      for (const auto& b : d.boxes) {
        int cls = -1;
        double cx = 0, cy = 0, w = 0, h = 0, conf = 0;
        in >> cls >> cx >> cy >> w >> h >> conf;
        QCOMPARE(cls, b.cls);
        QVERIFY(std::abs(cx - (b.x1 + b.x2) / 2 / d.width) < 1e-6 &&
                std::abs(w - (b.x2 - b.x1) / d.width) < 1e-6);
        QVERIFY(std::abs(cy - (b.y1 + b.y2) / 2 / d.height) < 1e-6 &&
                std::abs(h - (b.y2 - b.y1) / d.height) < 1e-6);
        QVERIFY(std::abs(conf - b.score) < 1e-5);
        ++lines;
      }
      in.skipWhiteSpace();
      QVERIFY2(in.atEnd(), file.c_str());
    }
    QVERIFY(lines > 64);
  }

  // The command line: crops listed in --json exist under crops/<class>/, one per detection; the drawing
  // options are taken; a negative width is refused; val's save_txt.
  void commandLine() {
    QTemporaryDir dir;
    const QString project = "project=" + dir.path();
    CliResult r = ywbRun({"predict", QString::fromStdString("weights=" + kUltra + "/yolov8n-shapes.pt"),
                          QString::fromStdString("source=" + kUltra + "/shapes/images/val"), project,
                          "save_crop=true", "line_width=2", "show_conf=false", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    int detections = 0;
    for (const auto& img : j["images"].toArray()) detections += img.toObject()["detections"].toArray().size();
    const QJsonArray crops = j["crops"].toArray();
    QVERIFY(detections > 10);
    QCOMPARE(crops.size(), detections);  // every box of the shapes images is inside its image
    for (const auto& c : crops) {
      const QString path = c.toString();
      QVERIFY2(QFile::exists(path) && path.contains("/predict/crops/"), qPrintable(path));
    }
    r = ywbRun({"predict", QString::fromStdString("weights=" + kUltra + "/yolov8n-shapes.pt"),
                QString::fromStdString("source=" + kUltra + "/shapes/images/val"), project, "line_width=-1"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("line_width=-1: expected a width in pixels"), r.err.constData());

    // val save_txt=true: its --json names the labels folder, a file for each of the 64 images.
    const std::string data = copyShapesDataset(dir.path().toStdString()) + "/data.yaml";
    r = ywbRun({"val", QString::fromStdString("data=" + data),
                QString::fromStdString("weights=" + kUltra + "/yolov8n-shapes.pt"), project, "plots=false",
                "save_txt=true", "--json"});
    QCOMPARE(r.code, 0);
    const QString labels = QJsonDocument::fromJson(r.out).object()["labels"].toString();
    QVERIFY2(labels.endsWith("/val/labels"), r.out.constData());
    QCOMPARE(QDir(labels).entryList({"*.txt"}, QDir::Files).size(), 64);
  }
};

QTEST_GUILESS_MAIN(TestPredictOutputs)
#include "test_predict_outputs.moc"
