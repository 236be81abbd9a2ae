// ywb::listDataset: the per-image listing the GUI's Dataset tab shows, from the engine's own scan.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "ywb/dataset_listing.h"
#include "ywb/synth.h"

namespace {

void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

}  // namespace

class TestDatasetListing : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void coco128MatchesItsReadme() {
    // Expected numbers from ../shared/datasets/coco128/README.md: train has 128 images, 2 of them backgrounds
    // (000000000250, 000000000508), 126 labelled with 929 boxes; val 128 images.
    const ywb::DatasetListing l = ywb::listDataset(YW_SHARED_DIR "/datasets/coco128/data.yaml", 2);
    QCOMPARE(int(l.splits.size()), 2);
    const ywb::SplitListing& train = l.splits[0];
    QCOMPARE(QString::fromStdString(train.split), QString("train"));
    QCOMPARE(int(train.images.size()), 128);
    int ok = 0, background = 0, boxes = 0;
    QStringList backgrounds;
    std::vector<int> per_class(80, 0);
    for (const ywb::ListedImage& i : train.images) {
      // Names are relative to the split's folder (images/train2017): the bare file name here.
      QCOMPARE(QString::fromStdString(i.name), QFileInfo(QString::fromStdString(i.image)).fileName());
      QVERIFY(QString::fromStdString(i.label).endsWith(
          "/labels/train2017/" + QFileInfo(QString::fromStdString(i.image)).baseName() + ".txt"));
      ok += i.status == ywb::ImageStatus::Ok;
      if (i.status == ywb::ImageStatus::Background) {
        ++background;
        backgrounds << QFileInfo(QString::fromStdString(i.image)).baseName();
      }
      boxes += int(i.boxes.size());
      for (const ywb::ListedBox& b : i.boxes) ++per_class[size_t(b.cls)];
    }
    QCOMPARE(ok, 126);
    QCOMPARE(background, 2);
    QCOMPARE(backgrounds, QStringList({"000000000250", "000000000508"}));
    QCOMPARE(boxes, 929);
    // The listing and the report come from the same scan.
    QCOMPARE(per_class, l.report.splits[0].per_class);
    QCOMPARE(int(l.splits[1].images.size()), 128);
    QCOMPARE(QString(ywb::imageStatusName(ywb::ImageStatus::Background)), QString("background"));
  }

  void polygonsProblemsAndBackgrounds() {
    QTemporaryDir tmp;
    ywb::SynthOptions o;
    o.out = (tmp.path() + "/d").toStdString();
    o.train = 3;
    o.val = 1;
    o.imgsz = 64;
    o.workers = 1;
    ywb::synthesizeDataset(o);
    const QString labels = tmp.path() + "/d/labels/train/";
    const QStringList files = QDir(labels).entryList({"*.txt"}, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 3);
    // A polygon row (segment format): its bounding box is x 0.1..0.5, y 0.1..0.6, so cx 0.3, cy 0.35,
    // w 0.4, h 0.5 (by hand).
    writeText(labels + files[0], "2 0.1 0.1 0.5 0.1 0.5 0.6 0.1 0.6\n");
    writeText(labels + files[1], "");                      // empty: a background
    writeText(labels + files[2], "1 0.5 oops 0.2 0.2\n");  // malformed: excluded, a problem
    const ywb::DatasetListing l = ywb::listDataset((tmp.path() + "/d/data.yaml").toStdString(), 1);
    const auto& imgs = l.splits[0].images;
    QCOMPARE(int(imgs.size()), 3);  // the excluded image is listed too
    QCOMPARE(imgs[0].status, ywb::ImageStatus::Ok);
    QCOMPARE(int(imgs[0].boxes.size()), 1);
    QCOMPARE(imgs[0].boxes[0].cls, 2);
    QVERIFY(qAbs(imgs[0].boxes[0].cx - 0.3f) < 1e-6f);
    QVERIFY(qAbs(imgs[0].boxes[0].cy - 0.35f) < 1e-6f);
    QVERIFY(qAbs(imgs[0].boxes[0].w - 0.4f) < 1e-6f);
    QVERIFY(qAbs(imgs[0].boxes[0].h - 0.5f) < 1e-6f);
    QCOMPARE(imgs[1].status, ywb::ImageStatus::Background);
    QCOMPARE(imgs[2].status, ywb::ImageStatus::Problem);
    QVERIFY(imgs[2].boxes.empty());
    QVERIFY2(QString::fromStdString(imgs[2].problem).contains("line 1"), imgs[2].problem.c_str());
    // Names relative to the split folder images/train; lookups by label and image path.
    QCOMPARE(QString::fromStdString(imgs[0].name),
             QFileInfo(QString::fromStdString(imgs[0].image)).fileName());
    QCOMPARE(l.findByLabel(imgs[2].label), &imgs[2]);
    QCOMPARE(l.findByImage(imgs[1].image), &imgs[1]);
    QVERIFY(l.findByImage("/nonexistent.jpg") == nullptr);
  }
};

QTEST_GUILESS_MAIN(TestDatasetListing)
#include "test_dataset_listing.moc"
