// Living beside Ultralytics on one dataset folder: after our scan, `dataset init` and a short training run,
// the folder holds nothing Ultralytics would misread. What Ultralytics reads there (its published behaviour):
// data.yaml (a relative `path:` from the working directory, no `path:` = the YAML's folder), the image files,
// `labels/**/<stem>.txt` for each image, `labels/<split>.cache` (a numpy pickle of its own) and
// `<image stem>.npy` beside an image (cache=disk, loaded instead of the image). So: the only new files may be
// ours by name (*.ywb-cache), and every data.yaml we write has no `path:` key.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <set>

#include "ywb/dataset.h"
#include "ywb/dataset_yaml.h"
#include "ywb/synth.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;

namespace {

std::set<std::string> filesUnder(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).generic_string());
  }
  return out;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The keys at the top level of a YAML file we wrote (one "key:" per line, no indentation).
std::set<std::string> topLevelKeys(const fs::path& yaml) {
  std::set<std::string> keys;
  std::ifstream in(yaml);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == ' ') continue;
    keys.insert(line.substr(0, line.find(':')));
  }
  return keys;
}

}  // namespace

class TestBesideUltralytics : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void datasetFolderStaysUltralyticsReadable() {
    QTemporaryDir dir;
    ywb::SynthOptions so;
    so.out = (dir.path() + "/shapes").toStdString();
    so.train = 8;
    so.val = 4;
    so.imgsz = 64;
    so.seed = 3;
    so.max_objects = 2;
    const std::string yaml = ywb::synthesizeDataset(so).data_yaml;
    const fs::path root = fs::path(yaml).parent_path();
    const std::set<std::string> before = filesUnder(root);

    // The YAML we wrote means the same folder to both tools: no `path:`, and our reader's root is its folder.
    const std::set<std::string> keys = topLevelKeys(yaml);
    QVERIFY(!keys.count("path"));
    QVERIFY(keys.count("train") && keys.count("val") && keys.count("names"));
    QCOMPARE(fs::path(ywb::loadDataConfig(yaml).root), root);

    // Our scan (`ywb dataset check`) and a one-epoch run at a tiny size (imgsz 64, 12 images).
    QVERIFY(ywb::checkDataset(yaml, 1).ok());
    ywb::TrainArgs a;
    a.data = yaml;
    a.project = (dir.path() + "/runs").toStdString();
    a.imgsz = 64;
    a.batch = 4;
    a.workers = 1;
    a.epochs = 1;
    a.amp = false;
    a.device = "cpu";
    ywb::Trainer trainer(a);
    QCOMPARE(trainer.run().epochs_completed, 1);

    const std::set<std::string> after = filesUnder(root);
    for (const auto& f : before) QVERIFY2(after.count(f), ("removed: " + f).c_str());
    int ours = 0;
    for (const auto& f : after) {
      if (before.count(f)) continue;
      // Only our label caches, beside the label folders, under a name Ultralytics never reads.
      QVERIFY2(endsWith(f, ".ywb-cache"), ("new file Ultralytics may read: " + f).c_str());
      QVERIFY2(f == "labels/train.ywb-cache" || f == "labels/val.ywb-cache", f.c_str());
      ++ours;
    }
    QCOMPARE(ours, 2);
    for (const auto& f : after) {
      QVERIFY2(!endsWith(f, ".cache") && !endsWith(f, ".npy"), f.c_str());
    }

    // `ywb dataset init` on the same folder writes a data.yaml without `path:` that resolves to the folder.
    ywb::DatasetInitOptions io;
    io.folder = root.string();
    io.overwrite = true;
    const ywb::DatasetInitReport r = ywb::initDatasetYaml(io);
    QVERIFY(!topLevelKeys(r.data_yaml).count("path"));
    QCOMPARE(fs::path(ywb::loadDataConfig(r.data_yaml).root), root);
  }
};

QTEST_GUILESS_MAIN(TestBesideUltralytics)
#include "test_beside_ultralytics.moc"
