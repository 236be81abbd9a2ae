// Tests of the embedded shapes dataset generator: labels inside the image, class counts, determinism.
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/remove_tree.h"
#include "data/image_io.h"
#include "ywb/error.h"
#include "ywb/synth.h"

namespace {

// Hashes every file under `root` (relative path + bytes), for byte-for-byte comparison of two trees.
QByteArray treeHash(const QString& root) {
  QStringList files;
  QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) files << QDir(root).relativeFilePath(it.next());
  files.sort();
  QCryptographicHash h(QCryptographicHash::Sha256);
  for (const auto& f : files) {
    h.addData(f.toUtf8());
    QFile file(root + "/" + f);
    if (file.open(QIODevice::ReadOnly)) h.addData(file.readAll());
  }
  return h.result().toHex();
}

}  // namespace

class TestSynth : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void labelsAreValidAndCountsMatch() {
    QTemporaryDir dir;
    ywb::SynthOptions opt;
    opt.out = dir.path().toStdString();
    opt.train = 24;
    opt.val = 6;
    opt.imgsz = 160;
    opt.seed = 7;
    const ywb::SynthReport rep = ywb::synthesizeDataset(opt);
    QCOMPARE(rep.class_names.size(), size_t(6));
    QVERIFY(QFile::exists(dir.path() + "/data.yaml"));
    for (const auto& split : rep.splits) {
      std::vector<int> counted(6, 0);
      int boxes = 0;
      const QString img_dir = dir.path() + "/images/" + QString::fromStdString(split.name);
      const QStringList images = QDir(img_dir).entryList({"*.jpg"}, QDir::Files, QDir::Name);
      QCOMPARE(images.size(), split.images);
      for (const auto& name : images) {
        const cv::Mat img =
            ywb::decodeJpeg(ywb::readFile((img_dir + "/" + name).toStdString()), name.toStdString());
        // Longest side is imgsz, the other in [0.75, 1] x imgsz (see SynthOptions).
        QCOMPARE(std::max(img.cols, img.rows), 160);
        QVERIFY(std::min(img.cols, img.rows) >= 120);
        QString label = img_dir + "/" + name;
        label.replace("/images/", "/labels/").replace(".jpg", ".txt");
        std::ifstream in(label.toStdString());
        QVERIFY2(in.good(), qPrintable("missing label " + label));
        std::string line;
        int rows = 0;
        while (std::getline(in, line)) {
          std::istringstream ls(line);
          int cls = -1;
          double cx, cy, w, h;
          QVERIFY2(bool(ls >> cls >> cx >> cy >> w >> h), line.c_str());
          QVERIFY(cls >= 0 && cls < 6);
          // Every box lies inside the image, with a little slack for the 6-decimal rounding.
          const double eps = 1e-5;
          QVERIFY(cx - w / 2 >= -eps && cx + w / 2 <= 1 + eps);
          QVERIFY(cy - h / 2 >= -eps && cy + h / 2 <= 1 + eps);
          // Generator rejects shapes smaller than 6 px in either side.
          QVERIFY(w * img.cols >= 6 - 1e-3 && h * img.rows >= 6 - 1e-3);
          ++counted[size_t(cls)];
          ++rows;
        }
        QVERIFY(rows >= 1);  // every image has at least one object
        boxes += rows;
      }
      QCOMPARE(boxes, split.boxes);
      QCOMPARE(counted, split.per_class);
      if (split.name == "train") {
        // 24 images with >= 1 object each; every one of the 6 classes should appear.
        for (int c = 0; c < 6; ++c)
          QVERIFY2(counted[size_t(c)] > 0, qPrintable(QString("class %1 absent").arg(c)));
      }
    }
  }

  void deterministicBySeedAndWorkerCount() {
    QTemporaryDir a, b, c;
    ywb::SynthOptions opt;
    opt.train = 10;
    opt.val = 3;
    opt.imgsz = 128;
    opt.seed = 42;
    opt.out = a.path().toStdString();
    opt.workers = 1;
    ywb::synthesizeDataset(opt);
    opt.out = b.path().toStdString();
    opt.workers = 2;
    ywb::synthesizeDataset(opt);
    QCOMPARE(treeHash(a.path()), treeHash(b.path()));
    opt.out = c.path().toStdString();
    opt.seed = 43;
    ywb::synthesizeDataset(opt);
    QVERIFY(treeHash(a.path()) != treeHash(c.path()));
  }

  void regenerationRemovesStaleFiles() {
    QTemporaryDir dir;
    ywb::SynthOptions opt;
    opt.out = dir.path().toStdString();
    opt.train = 8;
    opt.val = 2;
    opt.imgsz = 96;
    ywb::synthesizeDataset(opt);
    opt.train = 3;
    ywb::synthesizeDataset(opt);
    QCOMPARE(QDir(dir.path() + "/images/train").entryList(QDir::Files).size(), 3);
    QCOMPARE(QDir(dir.path() + "/labels/train").entryList(QDir::Files).size(), 3);
  }

  // removeTree (core/remove_tree.h), which clears the earlier generation above: the tree goes, the targets
  // of links inside it stay (a link is an entry, never followed), a missing path is no error, a path through
  // a file is one that names it.
  void removeTreeRemovesTheTreeButNotLinkTargets() {
    QTemporaryDir dir;
    const QString tree = dir.path() + "/tree", outside = dir.path() + "/outside";
    QVERIFY(QDir().mkpath(tree + "/a/b/empty") && QDir().mkpath(outside));
    ywb::writeFileAtomic((tree + "/a/b/f.txt").toStdString(), "x");
    ywb::writeFileAtomic((tree + "/top.txt").toStdString(), "y");
    ywb::writeFileAtomic((outside + "/keep.txt").toStdString(), "z");
    QVERIFY(QFile::link(outside, tree + "/a/link-to-outside"));
    QVERIFY(QFile::link(dir.path() + "/nowhere", tree + "/dangling"));
    QCOMPARE(QString::fromStdString(ywb::removeTree(tree.toStdString())), QString());
    QVERIFY(!QFileInfo::exists(tree) && !QFileInfo(tree).isSymLink());
    QVERIFY(QFile::exists(outside + "/keep.txt"));
    QCOMPARE(QString::fromStdString(ywb::removeTree(tree.toStdString())), QString());  // already gone
    const std::string through_file = (outside + "/keep.txt/x").toStdString();
    const QString why = QString::fromStdString(ywb::removeTree(through_file));
    QVERIFY2(why.contains(QString::fromStdString(through_file)), qPrintable(why));
    QVERIFY(QFile::exists(outside + "/keep.txt"));
  }

  void invalidOptionsAreClearErrors() {
    ywb::SynthOptions opt;
    opt.imgsz = 10;
    try {
      ywb::synthesizeDataset(opt);
      QFAIL("expected an error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("imgsz=10"), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestSynth)
#include "test_synth.moc"
