// Tests of `ywb dataset init` (initDatasetYaml): the three folder layouts on real generated images, class
// inference from labels, names from classes.txt / an existing data.yaml, the deterministic flat split, and
// the errors (missing folder, no images, labels without images, an existing data.yaml).
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error_of.h"
#include "support/tiny_run.h"
#include "ywb/dataset.h"
#include "ywb/dataset_yaml.h"
#include "ywb/error.h"
#include "ywb/synth.h"

namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A generated dataset in the images/{train,val} layout: 12 train and 4 val real JPEGs with labels.
std::string synth(const QTemporaryDir& dir) {
  ywb::test::tinyDataset(dir.path().toStdString(), {12, 4, 64});
  const std::string root = dir.path().toStdString() + "/shapes";
  fs::remove(root + "/data.yaml");  // the generator writes one; init must find the layout on its own
  return root;
}

}  // namespace

class TestDatasetYaml : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void imagesSplitLayout() {
    QTemporaryDir dir;
    const std::string root = synth(dir);
    ywb::DatasetInitOptions o;
    o.folder = root;
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
    QCOMPARE(QString::fromStdString(r.layout), QString("images/<split>"));
    QCOMPARE(QString::fromStdString(r.train), QString("images/train"));
    QCOMPARE(QString::fromStdString(r.val), QString("images/val"));
    QVERIFY(r.test.empty());
    QCOMPARE(r.train_images, 12);
    QCOMPARE(r.val_images, 4);
    QCOMPARE(r.label_files, 16);  // the generator puts 1..8 objects in every image: every image has a label
    QCOMPARE(r.bad_rows, 0);
    // nc inferred from the labels: largest id + 1 (ids are 0-based), named class0..
    QCOMPARE(QString::fromStdString(r.names_source), QString("labels"));
    QCOMPARE(int(r.names.size()), r.max_class_id + 1);
    QVERIFY(r.max_class_id >= 0 && r.max_class_id < int(ywb::synthClassNames().size()));
    QCOMPARE(QString::fromStdString(r.names.front()), QString("class0"));
    QCOMPARE(QString::fromStdString(r.data_yaml), QString::fromStdString(root + "/data.yaml"));
    QCOMPARE(int(r.written.size()), 1);

    // The written file is a valid data.yaml: the real scan finds every image.
    const ywb::DatasetReport scan = ywb::checkDataset(r.data_yaml, 2);
    QVERIFY(scan.ok());
    QCOMPARE(scan.splits[0].images, 12);
    QCOMPARE(scan.splits[1].images, 4);
    QCOMPARE(scan.config.names.size(), r.names.size());

    // An existing data.yaml is never replaced silently...
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("already exists"));
    // ...and with overwrite its names are kept (edit them to see that they come from the file).
    std::string yaml = readText(r.data_yaml);
    yaml.replace(yaml.find("\"class0\""), 8, "\"circle: big\"");
    writeText(r.data_yaml, yaml);
    o.overwrite = true;
    const ywb::DatasetInitReport again = ywb::initDatasetYaml(o);
    QCOMPARE(QString::fromStdString(again.names_source), QString("existing data.yaml"));
    QCOMPARE(QString::fromStdString(again.names.front()), QString("circle: big"));
    QCOMPARE(QString::fromStdString(ywb::loadDataConfig(again.data_yaml).names.front()),
             QString("circle: big"));  // quoted in the YAML, so the colon survives
  }

  void coco128FolderNames() {
    // coco128 (shared, read-only) keeps images/train2017 and images/val2017: linked into a writable folder,
    // init finds both splits. Counts from its README: 128 + 128 images; train has 2 images without a label
    // file and 2 label files without an image (so 126 matched), val 128 label files; the largest class id
    // in the labels is 79 (toothbrush; `cut -d' ' -f1 labels/*/*.txt | sort -n | tail -1`).
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const fs::path coco = std::string(YW_SHARED_DIR) + "/datasets/coco128";
    fs::create_directory_symlink(coco / "images", root / "images");
    fs::create_directory_symlink(coco / "labels", root / "labels");
    ywb::DatasetInitOptions o;
    o.folder = root.string();
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
    QCOMPARE(QString::fromStdString(r.train), QString("images/train2017"));
    QCOMPARE(QString::fromStdString(r.val), QString("images/val2017"));
    QCOMPARE(r.train_images, 128);
    QCOMPARE(r.val_images, 128);
    QCOMPARE(r.label_files, 126 + 128);
    QCOMPARE(r.max_class_id, 79);
    QCOMPARE(int(r.names.size()), 80);
    QCOMPARE(int(r.notes.size()), 1);
    QVERIFY(QString::fromStdString(r.notes[0]).startsWith("2 label file(s) have no image"));
  }

  void splitImagesLayoutWithClassesTxt() {
    // Roboflow's export layout: train/images, valid/images (+ labels beside them), classes from classes.txt.
    QTemporaryDir dir;
    const fs::path root = synth(dir);
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"train", "train"}, {"val", "valid"}}) {
      fs::create_directories(root / to);
      fs::rename(root / "images" / from, root / to / "images");
      fs::rename(root / "labels" / from, root / to / "labels");
    }
    fs::remove_all(root / "images");
    fs::remove_all(root / "labels");
    std::string classes;
    for (const auto& n : ywb::synthClassNames()) classes += n + "\n";
    writeText(root / "classes.txt", classes + "\n");  // a trailing blank line is not a class
    ywb::DatasetInitOptions o;
    o.folder = root.string();
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
    QCOMPARE(QString::fromStdString(r.layout), QString("<split>/images"));
    QCOMPARE(QString::fromStdString(r.train), QString("train/images"));
    QCOMPARE(QString::fromStdString(r.val), QString("valid/images"));
    QCOMPARE(QString::fromStdString(r.names_source), QString("classes.txt"));
    QCOMPARE(r.names, ywb::synthClassNames());
    QVERIFY(r.notes.empty());
    const ywb::DatasetReport scan = ywb::checkDataset(r.data_yaml, 2);
    QVERIFY(scan.ok());
    QCOMPARE(scan.splits[0].with_labels, 12);
    QCOMPARE(scan.splits[1].with_labels, 4);
  }

  void flatLayoutIsSplitDeterministically() {
    QTemporaryDir dir;
    const fs::path root = synth(dir);
    // Flatten: 16 images into images/, their labels into labels/, each file name prefixed with its split.
    fs::create_directories(root / "flat/images");
    fs::create_directories(root / "flat/labels");
    for (const char* split : {"train", "val"}) {
      for (const auto& e : fs::directory_iterator(root / "images" / split)) {
        const std::string stem = std::string(split) + "_" + e.path().stem().string();
        fs::rename(e.path(), root / "flat/images" / (stem + e.path().extension().string()));
        fs::rename(root / "labels" / split / (e.path().stem().string() + ".txt"),
                   root / "flat/labels" / (stem + ".txt"));
      }
    }
    writeText(root / "flat/labels/zz_orphan.txt", "0 0.5 0.5 0.1 0.1\n");
    ywb::DatasetInitOptions o;
    o.folder = (root / "flat").string();
    o.names = ywb::synthClassNames();
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
    QCOMPARE(QString::fromStdString(r.layout), QString("flat images/ + labels/"));
    QCOMPARE(QString::fromStdString(r.train), QString("train.txt"));
    QCOMPARE(QString::fromStdString(r.val), QString("val.txt"));
    // 16 images sorted by path, every 10th (index 9) to val: 1 val, 15 train.
    QCOMPARE(r.val_images, 1);
    QCOMPARE(r.train_images, 15);
    QCOMPARE(QString::fromStdString(r.names_source), QString("names="));
    QCOMPARE(int(r.written.size()), 3);  // train.txt, val.txt, data.yaml (last)
    QVERIFY(QString::fromStdString(r.written.back()).endsWith("data.yaml"));
    QCOMPARE(int(r.notes.size()), 1);  // the orphan label file
    QVERIFY(QString::fromStdString(r.notes[0]).contains("1 label file(s) have no image"));
    // Sorted names: train_0..train_11 come before val_*, so index 9 is the 10th train image in name order.
    std::vector<std::string> sorted;
    for (const auto& e : fs::directory_iterator(root / "flat/images")) sorted.push_back(e.path().filename());
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(QString::fromStdString(readText(root / "flat/val.txt")),
             QString::fromStdString("./images/" + sorted[9] + "\n"));

    // The same folder gives the same bytes (lists and yaml) when written again.
    const std::string train_txt = readText(root / "flat/train.txt"), yaml = readText(r.data_yaml);
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("already exists"));
    o.overwrite = true;
    ywb::initDatasetYaml(o);
    QCOMPARE(readText(root / "flat/train.txt"), train_txt);
    QCOMPARE(readText(r.data_yaml), yaml);

    // The lists work with the real scan (paths in .txt lists are relative to the list's folder).
    const ywb::DatasetReport scan = ywb::checkDataset(r.data_yaml, 2);
    QVERIFY(scan.ok());
    QCOMPARE(scan.splits[0].images, 15);
    QCOMPARE(scan.splits[1].images, 1);
  }

  void classCountFromLargestIdAndBadRows() {
    // Hand-made labels (images are never decoded by init): ids 0 and 4 -> nc 5; "x ..." is a bad row;
    // a blank line is not a row. Three images, val_every 2: sorted a,b,c -> b (index 1) to val.
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    for (const char* stem : {"a", "b", "c"}) writeText(root / "images" / (std::string(stem) + ".png"), "x");
    writeText(root / "labels/a.txt", "0 0.5 0.5 0.2 0.2\n\n4 0.1 0.1 0.1 0.1\n");
    writeText(root / "labels/b.txt", "x 0.5 0.5 0.2 0.2\n");
    ywb::DatasetInitOptions o;
    o.folder = root.string();
    o.val_every = 2;
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
    QCOMPARE(r.max_class_id, 4);
    QCOMPARE(int(r.names.size()), 5);
    QCOMPARE(QString::fromStdString(r.names[4]), QString("class4"));
    QCOMPARE(r.label_files, 2);  // c has no label file: a background image
    QCOMPARE(r.label_rows, 3);
    QCOMPARE(r.bad_rows, 1);
    QCOMPARE(r.train_images, 2);
    QCOMPARE(r.val_images, 1);
    QCOMPARE(QString::fromStdString(readText(root / "val.txt")), QString("./images/b.png\n"));
    const std::string yaml = readText(r.data_yaml);
    QVERIFY(yaml.find("nc: 5\n") != std::string::npos);
    QVERIFY(yaml.find("  4: \"class4\"\n") != std::string::npos);
  }

  void errorsSayWhatIsWrong() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    ywb::DatasetInitOptions o;
    o.folder = (root / "nowhere").string();
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("does not exist"));

    fs::create_directories(root / "empty/images/train");
    o.folder = (root / "empty").string();
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("no images in"));

    writeText(root / "labelsonly/labels/train/a.txt", "0 0.5 0.5 0.1 0.1\n");
    writeText(root / "labelsonly/labels/train/b.txt", "0 0.5 0.5 0.1 0.1\n");
    o.folder = (root / "labelsonly").string();
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("has 2 label file(s) but no images"));

    // Images but no labels and no names: the classes cannot be known.
    writeText(root / "nolabels/images/a.jpg", "x");
    writeText(root / "nolabels/images/b.jpg", "x");
    o.folder = (root / "nolabels").string();
    QVERIFY(qErrorOf([&] { ywb::initDatasetYaml(o); }).contains("pass names="));
    QVERIFY(!fs::exists(root / "nolabels/data.yaml"));  // nothing written on failure
    QVERIFY(!fs::exists(root / "nolabels/train.txt"));
    o.names = {"thing"};
    QCOMPARE(ywb::initDatasetYaml(o).names_source, std::string("names="));
  }

  // data= given as what it is not: a folder (with or without a data.yaml in it), or a bare Ultralytics
  // dataset name, which Ultralytics would download. Each message says what to pass instead.
  void dataPathMistakesAreNamed() {
    QTemporaryDir dir;
    const std::string root = synth(dir);
    writeText(fs::path(root) / "data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [a]\n");
    QString e = qErrorOf([&] { ywb::loadDataConfig(root); });
    QVERIFY2(e.contains("is a folder; pass data=path/to/data.yaml (here: data=" +
                        QString::fromStdString(root) + "/data.yaml)"),
             qPrintable(e));
    e = qErrorOf([&] { ywb::loadDataConfig(dir.path().toStdString()); });
    QVERIFY2(e.contains("it holds no data.yaml: `ywb dataset init path="), qPrintable(e));
    e = qErrorOf([&] { ywb::loadDataConfig("coco8.yaml"); });  // no such file in the test's working folder
    QVERIFY2(e.contains("not found") && e.contains("Ultralytics downloads its named datasets"),
             qPrintable(e));
    e = qErrorOf([&] { ywb::loadDataConfig(root + "/nope.yaml"); });  // a path: no word about Ultralytics
    QVERIFY2(e.contains("not found") && !e.contains("Ultralytics"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestDatasetYaml)
#include "test_dataset_yaml.moc"
