// Tests of data.yaml reading, label verification, the dataset scan (coco128 counts) and the label cache.
#include <sys/stat.h>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/label_parser.h"
#include "support/error_of.h"
#include "ywb/dataset.h"
#include "ywb/error.h"

namespace fs = std::filesystem;

namespace {

const std::string kCoco = std::string(YW_SHARED_DIR) + "/datasets/coco128";
// The first four coco128 train images (all have labels).
const char* kStems[] = {"000000000009", "000000000025", "000000000030", "000000000034"};

void writeText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A writable dataset of real coco128 images: images/{train,val}, labels/{train,val}, data.yaml.
std::string makeDataset(const QTemporaryDir& dir, int n = 4) {
  const std::string root = dir.path().toStdString();
  for (const char* split : {"train", "val"}) {
    fs::create_directories(root + "/images/" + split);
    fs::create_directories(root + "/labels/" + split);
    for (int i = 0; i < n; ++i) {
      const std::string stem = kStems[i];
      fs::copy_file(kCoco + "/images/train2017/" + stem + ".jpg",
                    root + "/images/" + split + "/" + stem + ".jpg");
      fs::copy_file(kCoco + "/labels/train2017/" + stem + ".txt",
                    root + "/labels/" + split + "/" + stem + ".txt");
      fs::permissions(root + "/labels/" + split + "/" + stem + ".txt", fs::perms::owner_write,
                      fs::perm_options::add);
    }
  }
  writeText(
      root + "/data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [" + [] {
        std::string s;
        for (int i = 0; i < 80; ++i) s += (i ? ", c" : "c") + std::to_string(i);
        return s;
      }() + "]\n");
  return root + "/data.yaml";
}

const ywb::DatasetProblem* findProblem(const ywb::SplitReport& r, const std::string& file_part,
                                       const std::string& why) {
  for (const auto& p : r.problems) {
    if (p.file.find(file_part) != std::string::npos && p.reason.find(why) != std::string::npos) return &p;
  }
  return nullptr;
}

}  // namespace

class TestDataScan : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void coco128Counts() {
    const ywb::DatasetReport r = ywb::checkDataset(kCoco + "/data.yaml", 2);
    QCOMPARE(r.config.names.size(), size_t(80));
    QCOMPARE(r.splits.size(), size_t(2));
    // Expected numbers: the dataset README (train 128/126/929, 2 backgrounds, 2 orphans; val 128 images, 898
    // boxes).
    const auto& t = r.splits[0];
    QCOMPARE(t.split, std::string("train"));
    QCOMPARE(t.images, 128);
    QCOMPARE(t.with_labels, 126);
    QCOMPARE(t.boxes, 929);
    QCOMPARE(t.backgrounds, 2);
    QCOMPARE(t.orphans, 2);
    QCOMPARE(t.corrupt, 0);
    QVERIFY(findProblem(t, "000000000656.txt", "orphan"));
    QVERIFY(findProblem(t, "000000000659.txt", "orphan"));
    int classes = 0;
    for (int c : t.per_class) classes += c > 0;
    QCOMPARE(classes, 71);  // README: 71 classes present in train
    const auto& v = r.splits[1];
    QCOMPARE(v.images, 128);
    QCOMPARE(v.boxes, 898);
    QCOMPARE(v.with_labels, 128);
    QVERIFY(r.ok());
    // The shared folder is read-only data: no cache may appear there, and the report says so.
    QVERIFY(!QFile::exists(QString::fromStdString(kCoco + "/labels/train2017.ywb-cache")));
    QVERIFY(t.cache_path.empty());
    QVERIFY2(t.cache_note.find("not writable") != std::string::npos, t.cache_note.c_str());
    const std::string text = ywb::datasetReportText(r);
    QVERIFY(
        text.find("128 images: 126 with labels, 2 backgrounds, 0 corrupt, 2 orphan label files; 929 boxes") !=
        std::string::npos);
    QVERIFY(ywb::datasetReportJson(r).find("\"boxes\": 929") != std::string::npos);
  }

  void cacheWrittenReusedAndRebuilt() {
    QTemporaryDir dir;
    const std::string yaml = makeDataset(dir);
    const ywb::DataConfig cfg = ywb::loadDataConfig(yaml);
    const ywb::ScannedSplit a = ywb::scanSplit(cfg, "train");
    const std::string cache = dir.path().toStdString() + "/labels/train.ywb-cache";
    QCOMPARE(a.report.cache_path, cache);
    QVERIFY(fs::exists(cache));
    QVERIFY(!a.report.from_cache);
    const ywb::ScannedSplit b = ywb::scanSplit(cfg, "train");
    QVERIFY(b.report.from_cache);
    QCOMPARE(b.report.boxes, a.report.boxes);
    QCOMPARE(b.images.size(), a.images.size());
    QCOMPARE(b.images[2].boxes.size(), a.images[2].boxes.size());
    QCOMPARE(b.images[2].width, a.images[2].width);
    // A changed label file (size and mtime) makes the cache stale: rebuilt, with one more box.
    std::ofstream(dir.path().toStdString() + "/labels/train/" + kStems[0] + ".txt", std::ios::app)
        << "0 0.5 0.5 0.1 0.1\n";
    const ywb::ScannedSplit c = ywb::scanSplit(cfg, "train");
    QVERIFY(!c.report.from_cache);
    QVERIFY2(c.report.cache_note.find("stale") != std::string::npos, c.report.cache_note.c_str());
    QCOMPARE(c.report.boxes, a.report.boxes + 1);
    // A damaged cache is never trusted.
    writeText(cache, "garbage");
    const ywb::ScannedSplit d = ywb::scanSplit(cfg, "train");
    QVERIFY(!d.report.from_cache);
    QVERIFY2(d.report.cache_note.find("damaged") != std::string::npos, d.report.cache_note.c_str());
    QCOMPARE(d.report.boxes, c.report.boxes);
    QVERIFY(ywb::scanSplit(cfg, "train").report.from_cache);
  }

  // Ultralytics reads labels/<split>.cache as a numpy pickle: we never write that name, leave its own cache
  // alone (and never read it), and remove a cache of ours that an earlier version left under that name.
  void ultralyticsCacheNameIsNeverOurs() {
    QTemporaryDir dir;
    const std::string yaml = makeDataset(dir);
    const ywb::DataConfig cfg = ywb::loadDataConfig(yaml);
    const std::string ours = dir.path().toStdString() + "/labels/train.ywb-cache";
    const std::string theirs = dir.path().toStdString() + "/labels/train.cache";
    const ywb::ScannedSplit a = ywb::scanSplit(cfg, "train");
    QVERIFY(fs::exists(ours));
    QVERIFY(!fs::exists(theirs));
    // Ultralytics' cache: np.save() bytes ("\x93NUMPY", version, header, pickle). Kept as is, not read.
    const std::string npy = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                            "{'descr': '|O', 'fortran_order': False, 'shape': (), }" + std::string(63, ' ') +
                            "\n\x80\x04\x95garbage";
    writeText(theirs, npy);
    fs::remove(ours);
    const ywb::ScannedSplit b = ywb::scanSplit(cfg, "train");
    QCOMPARE(b.report.boxes, a.report.boxes);
    QVERIFY(!b.report.from_cache);
    std::ifstream in(theirs, std::ios::binary);
    QCOMPARE(std::string(std::istreambuf_iterator<char>(in), {}), npy);
    // A cache of ours under Ultralytics' name (left by an earlier version): removed by the next scan.
    fs::copy_file(ours, theirs, fs::copy_options::overwrite_existing);
    const ywb::ScannedSplit c = ywb::scanSplit(cfg, "train");
    QVERIFY(c.report.from_cache);
    QVERIFY(!fs::exists(theirs));
  }

  void readOnlyLabelsFolderScansWithoutCache() {
    QTemporaryDir dir;
    const std::string yaml = makeDataset(dir);
    const std::string labels = dir.path().toStdString() + "/labels";
    ::chmod(labels.c_str(), 0555);
    const ywb::ScannedSplit s = ywb::scanSplit(ywb::loadDataConfig(yaml), "train");
    ::chmod(labels.c_str(), 0755);
    QVERIFY(s.report.cache_path.empty());
    QVERIFY2(s.report.cache_note.find("not writable") != std::string::npos, s.report.cache_note.c_str());
    QVERIFY(!fs::exists(labels + "/train.ywb-cache"));
    QCOMPARE(s.report.images, 4);
    QCOMPARE(s.report.corrupt, 0);
  }

  void badImagesAndLabelsAreReportedAndSkipped() {
    QTemporaryDir dir;
    const std::string yaml = makeDataset(dir);
    const std::string root = dir.path().toStdString();
    const std::string good = ywb::readFile(root + "/images/train/" + kStems[0] + ".jpg");
    // Truncated: the first half of a real JPEG.
    writeText(root + "/images/train/truncated.jpg", good.substr(0, good.size() / 2));
    // Corrupt: entropy-coded data overwritten with bytes that are not valid Huffman codes.
    std::string corrupt = good;
    for (size_t i = corrupt.size() / 3; i < corrupt.size() / 3 + 4000; ++i) corrupt[i] = char(0xFF);
    writeText(root + "/images/train/corrupt.jpg", corrupt);
    writeText(root + "/images/train/empty.jpg", "");
    // Labels with one bad row each (the good images reuse a real JPEG).
    const std::pair<const char*, const char*> rows[] = {
        {"fourfields", "0 0.5 0.5 0.2\n"},
        {"classrange", "85 0.5 0.5 0.2 0.2\n"},
        {"nan", "1 nan 0.5 0.2 0.2\n"},
        {"nonnumeric", "1 0.5 abc 0.2 0.2\n"},
        {"outside", "1 1.5 0.5 0.2 0.2\n"},
        {"dup", "1 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n2 0.3 0.3 0.1 0.1\n"}};
    for (const auto& [stem, text] : rows) {
      writeText(root + "/images/train/" + stem + ".jpg", good);
      writeText(root + "/labels/train/" + std::string(stem) + ".txt", text);
    }
    writeText(root + "/labels/train/orphan.txt", "0 0.5 0.5 0.1 0.1\n");
    const ywb::DatasetReport rep = ywb::checkDataset(yaml, 2);
    const ywb::SplitReport& t = rep.splits[0];
    QCOMPARE(t.images, 4 + 3 + 6);
    // Excluded: truncated, corrupt, empty + 5 invalid label files; the duplicate row only drops that row.
    QCOMPARE(t.corrupt, 8);
    QCOMPARE(t.duplicates_removed, 1);
    QCOMPARE(t.orphans, 1);
    QCOMPARE(t.with_labels, 5);  // 4 originals + dup
    QVERIFY(!rep.ok());
    QVERIFY(findProblem(t, "truncated.jpg", "truncated JPEG: the file ends without an end-of-image marker"));
    QVERIFY(findProblem(t, "corrupt.jpg", "corrupt JPEG data"));
    QVERIFY(findProblem(t, "empty.jpg", "empty file (0 bytes)"));
    QVERIFY(findProblem(t, "fourfields.txt", "row has 4 fields, expected 5"));
    QVERIFY(findProblem(t, "classrange.txt", "class 85 outside [0, 80)"));
    QVERIFY(findProblem(t, "nan.txt", "NaN or infinite value 'nan' in field 2"));
    QVERIFY(findProblem(t, "nonnumeric.txt", "non-numeric value 'abc' in field 3"));
    QVERIFY(findProblem(t, "outside.txt", "coordinate 1.5 in field 2 outside [0, 1]"));
    const auto* dup = findProblem(t, "dup.txt", "duplicate row removed (same as line 1)");
    QVERIFY(dup);
    QCOMPARE(dup->line, 2);
    QVERIFY(findProblem(t, "orphan.txt", "orphan label file"));
  }

  void labelParserRules() {
    // Tiny overshoot (edges at -0.002 and 1.002, within the 0.01 tolerance) is clipped: box becomes [0, 1].
    auto r = ywb::parseLabels("3 0.5 0.5 1.004 0.5\n", 80);
    QVERIFY(!r.invalid);
    QCOMPARE(r.boxes.size(), size_t(1));
    QCOMPARE(r.boxes[0].cls, 3);
    QCOMPARE(r.boxes[0].w, 1.0f);
    QCOMPARE(r.boxes[0].cx, 0.5f);
    // An edge past 1 by the rounding of six-decimal text (0.948413 + 0.103175 / 2 = 1.0000005) is kept as
    // written, as Ultralytics keeps it: the stored numbers are the float32 values of the text.
    r = ywb::parseLabels("5 0.948413 0.597656 0.103175 0.148438\n", 80);
    QCOMPARE(r.boxes.size(), size_t(1));
    QCOMPARE(r.boxes[0].cx, 0.948413f);
    QCOMPARE(r.boxes[0].w, 0.103175f);
    // Larger overshoot (edge at 1.05) is rejected.
    r = ywb::parseLabels("3 0.95 0.5 0.2 0.5\n", 80);
    QVERIFY(r.invalid);
    QVERIFY(r.problems[0].reason.find("box edge at 1.05 outside [0, 1]") != std::string::npos);
    // Zero-area rows are dropped, the rest kept.
    r = ywb::parseLabels("0 0.5 0.5 0 0.2\n1 0.5 0.5 0.2 0.2\n", 80);
    QVERIFY(!r.invalid);
    QCOMPARE(r.rows_dropped, 1);
    QCOMPARE(r.boxes.size(), size_t(1));
    // A polygon row becomes its bounding box: x in [0.1, 0.5], y in [0.2, 0.6] -> cx 0.3, cy 0.4, w 0.4, h
    // 0.4.
    r = ywb::parseLabels("2 0.1 0.2 0.5 0.2 0.3 0.6\n", 80);
    QVERIFY(!r.invalid);
    QCOMPARE(r.boxes.size(), size_t(1));
    QVERIFY(std::abs(r.boxes[0].cx - 0.3f) < 1e-6f && std::abs(r.boxes[0].h - 0.4f) < 1e-6f);
    // Blank lines are ignored; a fractional class is an error; line numbers count blank lines.
    r = ywb::parseLabels("\n1.5 0.5 0.5 0.2 0.2\n", 80);
    QVERIFY(r.invalid);
    QCOMPARE(r.problems[0].line, 2);
    QVERIFY(r.problems[0].reason.find("not a whole number") != std::string::npos);
    QVERIFY(ywb::parseLabels("", 80).boxes.empty());
  }

  void labelPathRule() {
    QCOMPARE(ywb::labelPathFor("/d/images/train/a.b.jpg"), std::string("/d/labels/train/a.b.txt"));
    // Only the last /images/ is replaced (Ultralytics rsplit).
    QCOMPARE(ywb::labelPathFor("/images/x/images/y/z.PNG"), std::string("/images/x/labels/y/z.txt"));
    QVERIFY(ywb::isImageFile("a/B.JPEG") && ywb::isImageFile("c.webp") && !ywb::isImageFile("d.txt"));
  }

  void yamlForms() {
    QTemporaryDir dir;
    const std::string yaml = makeDataset(dir);
    const std::string root = dir.path().toStdString();
    // names as a map, nc agreeing, a .txt image list for val with a relative path.
    writeText(root + "/val.txt",
              "./images/val/" + std::string(kStems[0]) + ".jpg\nimages/val/" + kStems[1] + ".jpg\n");
    writeText(root + "/sub/data.yaml",
              "path: ..\ntrain: [images/train]\nval: val.txt\nnc: 2\nnames:\n  0: cat\n  1: dog\n");
    const ywb::DataConfig cfg = ywb::loadDataConfig(root + "/sub/data.yaml");
    QCOMPARE(cfg.names, (std::vector<std::string>{"cat", "dog"}));
    QCOMPARE(cfg.root, root);
    const ywb::ScannedSplit val = ywb::scanSplit(cfg, "val", {2, false});
    QCOMPARE(val.report.images, 2);
    (void)yaml;
  }

  // A split source may be a glob pattern, as in Ultralytics' data.yaml (`images/train/*.jpg`). Expected
  // counts from kStems by hand: "*.jpg" takes all four, "00000000003?.jpg" the two ending in 30 and 34.
  // A pattern that matches nothing names itself; an existing folder whose name holds '[' is a folder.
  void patternSources() {
    QTemporaryDir dir;
    const std::string root = fs::path(makeDataset(dir)).parent_path().string();
    std::string names = "names: [c0";  // the 80 classes of coco128's labels, as makeDataset names them
    for (int i = 1; i < 80; ++i) names += ", c" + std::to_string(i);
    names += "]\n";
    writeText(root + "/p.yaml",
              "path: .\ntrain: images/train/*.jpg\nval: images/val/00000000003?.jpg\n" + names);
    const ywb::DataConfig cfg = ywb::loadDataConfig(root + "/p.yaml");
    QCOMPARE(ywb::scanSplit(cfg, "train", {2, false}).report.images, 4);
    const ywb::ScannedSplit val = ywb::scanSplit(cfg, "val", {2, false});
    QCOMPARE(val.report.images, 2);
    QCOMPARE(val.report.with_labels, 2);  // the labels are found beside a pattern's images

    writeText(root + "/none.yaml", "path: .\ntrain: images/train/*.png\nval: images/val\n" + names);
    const QString e = qErrorOf([&] { ywb::scanSplit(ywb::loadDataConfig(root + "/none.yaml"), "train"); });
    QVERIFY2(e.contains("images/train/*.png") && e.contains("the pattern matches no file"), qPrintable(e));

    fs::create_directories(root + "/set [v2]");
    fs::rename(root + "/images", root + "/set [v2]/images");
    fs::rename(root + "/labels", root + "/set [v2]/labels");
    writeText(root + "/b.yaml", "path: .\ntrain: set [v2]/images/train\nval: set [v2]/images/val\n" + names);
    QCOMPARE(ywb::scanSplit(ywb::loadDataConfig(root + "/b.yaml"), "train", {2, false}).report.images, 4);
  }

  void yamlErrorsAreSpecific() {
    QTemporaryDir dir;
    makeDataset(dir);
    const std::string root = dir.path().toStdString();
    writeText(root + "/broken.yaml", "path: .\ntrain: [images/train\nval: images/val\n");
    QString e = qErrorOf([&] { ywb::loadDataConfig(root + "/broken.yaml"); });
    // Where: the file, then yaml-cpp's line and column (core/yaml_text.h's format).
    QVERIFY2(e.contains(QRegularExpression("broken\\.yaml:[0-9]+:[0-9]+: broken YAML: ")), qPrintable(e));
    writeText(root + "/missing.yaml", "path: .\ntrain: images/nope\nval: images/val\nnames: [a]\n");
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/missing.yaml"); });
    QVERIFY2(e.contains("train path") && e.contains("images/nope' does not exist"), qPrintable(e));
    writeText(root + "/nc.yaml", "train: images/train\nval: images/val\nnc: 3\nnames: [a, b]\n");
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/nc.yaml"); });
    QVERIFY2(e.contains("nc: 3 but names lists 2 classes"), qPrintable(e));
    writeText(root + "/gap.yaml", "train: images/train\nval: images/val\nnames: {0: a, 2: c}\n");
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/gap.yaml"); });
    QVERIFY2(e.contains("id 1 is missing"), qPrintable(e));
    writeText(root + "/noval.yaml", "train: images/train\nnames: [a]\n");
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/noval.yaml"); });
    QVERIFY2(e.contains("no 'val:' entry"), qPrintable(e));
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/absent.yaml"); });
    QVERIFY2(e.contains("not found"), qPrintable(e));
    // nc alone gives generic names.
    writeText(root + "/nconly.yaml", "train: images/train\nval: images/val\nnc: 2\n");
    QCOMPARE(ywb::loadDataConfig(root + "/nconly.yaml").names.size(), size_t(2));
  }

  void probeReadsExifOrientation() {
    // A 40x20 JPEG with an EXIF block saying orientation 6 (rotate 90 clockwise) is 20x40 upright.
    cv::Mat img(20, 40, CV_8UC3, cv::Scalar(10, 20, 30));
    std::string jpg = ywb::encodeJpeg(img);
    // APP1: "Exif\0\0" + TIFF (big endian) with one IFD entry 0x0112 SHORT 1 value 6.
    const unsigned char tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                                  0,   0,   0, 1,  0, 6, 0, 0, 0, 0, 0,    0,    0, 0};
    std::string app1 = std::string("\xFF\xE1", 2);
    const size_t len = 2 + 6 + sizeof tiff;
    app1 += char(len >> 8);
    app1 += char(len & 0xFF);
    app1 += std::string("Exif\0\0", 6);
    app1 += std::string(reinterpret_cast<const char*>(tiff), sizeof tiff);
    jpg.insert(2, app1);
    QCOMPARE(ywb::jpegExifOrientation(jpg), 6);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/rot.jpg";
    writeText(path, jpg);
    const ywb::ImageProbe p = ywb::probeImage(path);
    QVERIFY2(p.ok, p.reason.c_str());
    QCOMPARE(p.width, 20);
    QCOMPARE(p.height, 40);
    int w0 = 0, h0 = 0;
    const cv::Mat up = ywb::loadImage(path, 0, false, &w0, &h0);
    QCOMPARE(up.cols, 20);
    QCOMPARE(up.rows, 40);
    QCOMPARE(w0, 20);
    // DCT scaling path: 40 px long side to 16 px target -> decoded at >= 16 then resized to exactly 8x16.
    const cv::Mat small = ywb::loadImage(path, 16, true);
    QCOMPARE(small.cols, 8);
    QCOMPARE(small.rows, 16);
  }
};

QTEST_GUILESS_MAIN(TestDataScan)
#include "test_data_scan.moc"
