// Coming back to a run (issue 34), what a run folder holds besides its curves: its args.yaml in the
// Hyperparameters tab (the values shown are the run's, the keys this trainer does not use named), the split
// it validated on in Predictions (one click from validating), and its log in the Training tab's log view.
// On a run trained here, on Ultralytics 8.3.253's own run folder, and on an 8.4-style args.yaml.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "hyperparams_tab.h"
#include "log_view.h"
#include "main_window.h"
#include "metric_chart.h"
#include "predictions_tab.h"
#include "support/screenshots.h"
#include "support/tiny_run.h"
#include "training_tab.h"
#include "ywb/train_log.h"

namespace fs = std::filesystem;

namespace {
const QString kUltra = QString(YW_SHARED_DIR) + "/fixtures/ultralytics";

// args.yaml's `key: value` lines as written (both Ultralytics' and ours are flat mappings; our strings are
// double-quoted). Read here by hand, apart from the engine's reader the GUI uses.
QMap<QString, QString> argsYaml(const QString& path) {
  QMap<QString, QString> out;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return out;
  for (const QString& line : QString::fromUtf8(f.readAll()).split('\n')) {
    const int colon = line.indexOf(": ");
    if (colon <= 0) continue;
    QString v = line.mid(colon + 2).trimmed();
    if (v.startsWith('"') && v.endsWith('"')) v = v.mid(1, v.size() - 2);
    out[line.left(colon)] = v;
  }
  return out;
}

QString readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

void writeAll(const QString& path, const QString& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text.toUtf8());
}

// fs::copy keeps the fixtures' read-only modes: the copies are made writable (files edited, folders added).
void makeWritable(const QString& root) {
  fs::permissions(root.toStdString(), fs::perms::owner_write, fs::perm_options::add);
  for (const auto& e : fs::recursive_directory_iterator(root.toStdString()))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
}

QString trainingLog(ywb::gui::MainWindow& w) {
  return w.training()->findChild<ywb::gui::LogView*>("trainingLog")->toPlainText();
}

// A number as the editor shows it and as args.yaml writes it compare as numbers ("0.01" and "1e-2").
bool sameValue(const QString& a, const QString& b) {
  bool na = false, nb = false;
  const double x = a.toDouble(&na), y = b.toDouble(&nb);
  return na && nb ? std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y)) : a == b;
}
}  // namespace

class TestReopenRunArgs : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_reopen_run_args");
    QSettings().clear();
    QVERIFY(tmp_.isValid());
    // A run trained here: 2 epochs on a tiny generated dataset; settings away from the defaults.
    ywb::TrainArgs a = ywb::test::tinyRunArgs(
        ywb::test::tinyDataset(tmp_.path().toStdString(), {8, 4, 64, 5, ywb::SynthOptions{}.max_objects, 1}),
        (tmp_.path() + "/runs/detect").toStdString());
    a = ywb::test::withArgs(a, {{"imgsz", "64"},
                                {"batch", "4"},
                                {"workers", "1"},
                                {"name", "tiny"},
                                {"lr0", "0.02"},
                                {"optimizer", "AdamW"},
                                {"close_mosaic", "1"}});
    ywb::Trainer trainer(a);
    tiny_ = QString::fromStdString(trainer.run().run_dir);
    QVERIFY(QFileInfo::exists(tiny_ + "/" + ywb::kRunLogFile));
    // Ultralytics' run beside it (runs/detect/train) with the dataset its args.yaml names, three levels up
    // (data: ../../shapes/data.yaml). The dataset gets a small test split (8 of its train images).
    ultra_ = tmp_.path() + "/runs/detect/train";
    fs::copy((kUltra + "/reference-avx2/run").toStdString(), ultra_.toStdString(),
             fs::copy_options::recursive);
    const QString shapes = tmp_.path() + "/runs/shapes";
    fs::copy((kUltra + "/shapes").toStdString(), shapes.toStdString(), fs::copy_options::recursive);
    makeWritable(ultra_);
    makeWritable(shapes);
    for (const char* kind : {"images", "labels"}) QVERIFY(QDir().mkpath(shapes + "/" + kind + "/test"));
    for (int i = 0; i < 8; ++i) {
      const QString stem = QString("train_%1").arg(i, 5, 10, QChar('0'));
      QVERIFY(
          QFile::copy(shapes + "/images/train/" + stem + ".jpg", shapes + "/images/test/" + stem + ".jpg"));
      QVERIFY(
          QFile::copy(shapes + "/labels/train/" + stem + ".txt", shapes + "/labels/test/" + stem + ".txt"));
    }
    writeAll(shapes + "/data.yaml", readAll(shapes + "/data.yaml") + "test: images/test\n");
  }

  void ourRunsArgsSplitAndLog() {
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(tiny_));
    // Hyperparameters: the run's args.yaml (written by the engine) field for field.
    const QMap<QString, QString> yaml = argsYaml(tiny_ + "/args.yaml");
    QCOMPARE(yaml.value("epochs"), QString("2"));
    QCOMPARE(yaml.value("optimizer"), QString("AdamW"));
    ywb::gui::HyperparamsTab* h = w.hyperparams();
    for (const char* key : {"epochs", "imgsz", "batch", "lr0", "optimizer", "close_mosaic", "seed", "amp"})
      QVERIFY2(sameValue(h->value(key), yaml.value(key)),
               qPrintable(QString("%1: shown %2, args.yaml %3").arg(key, h->value(key), yaml.value(key))));
    QCOMPARE(h->value("data"), QFileInfo(tmp_.path() + "/shapes/data.yaml").absoluteFilePath());
    QVERIFY2(h->status().contains("the arguments of " + tiny_), qPrintable(h->status()));
    QVERIFY2(!h->status().contains("does not use"), qPrintable(h->status()));  // ours has no foreign keys
    // Predictions: our trainer validates on val (its args.yaml names no split).
    QCOMPARE(w.predictions()->findChild<QComboBox*>("predSplit")->currentText(), QString("val"));
    // Training: the run's log file, every line of it, in the log view.
    const QString log = trainingLog(w);
    const QStringList lines = readAll(tiny_ + "/" + ywb::kRunLogFile).split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 5);
    for (const QString& line : lines) QVERIFY2(log.contains(line), qPrintable("not shown: " + line));
    QVERIFY(!log.contains("no log in this run folder"));
    w.resize(1440, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(w.training());
    QVERIFY(w.grab().save(shotsDir() + "/reopen_tiny_run_log.png"));
    w.tabs()->setCurrentWidget(w.hyperparams());
    QVERIFY(w.grab().save(shotsDir() + "/reopen_tiny_run_args.png"));
  }

  void ultralyticsRunsArgsAndOneClickValidation() {
    // The folder holding runs/ is the working folder (as where Ultralytics ran): its exist_ok: true with
    // project runs/detect and name train would make Start write over the opened run, so it is turned off.
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(tmp_.path()));
    // Validate on the test split: the run's args.yaml says so.
    const QString run = tmp_.path() + "/runs/detect/train-test";
    fs::copy(ultra_.toStdString(), run.toStdString(), fs::copy_options::recursive);
    writeAll(run + "/args.yaml", readAll(run + "/args.yaml").replace("split: val", "split: test"));
    {
      ywb::gui::MainWindow w;
      QVERIFY(w.openPath(ultra_));
      const QMap<QString, QString> yaml = argsYaml(ultra_ + "/args.yaml");
      ywb::gui::HyperparamsTab* h = w.hyperparams();
      for (const char* key : {"epochs", "imgsz", "batch", "lr0", "lrf", "optimizer", "close_mosaic", "mosaic",
                              "momentum", "weight_decay", "workers", "device", "patience", "seed"})
        QVERIFY2(sameValue(h->value(key), yaml.value(key)),
                 qPrintable(QString("%1: shown %2, args.yaml %3").arg(key, h->value(key), yaml.value(key))));
      QCOMPARE(h->value("epochs"), QString("30"));
      QCOMPARE(h->value("imgsz"), QString("128"));
      // Ultralytics' `pretrained: false` and `resume: false`: off, not a file named "false".
      QCOMPARE(h->value("pretrained"), QString());
      QCOMPARE(h->value("resume"), QString());
      QCOMPARE(h->value("data"), QFileInfo(tmp_.path() + "/runs/shapes/data.yaml").absoluteFilePath());
      QCOMPARE(h->value("exist_ok"), QString("false"));
      const QString status = h->status();
      QVERIFY2(status.contains("exist_ok set to false"), qPrintable(status));
      // The keys this trainer does not use are named, not dropped in silence.
      for (const char* key : {"task", "mode", "copy_paste_mode", "tracker", "save_dir"})
        QVERIFY2(status.contains(key), qPrintable(QString("%1 not named in: %2").arg(key, status)));
      QVERIFY2(!status.contains("split"), qPrintable(status));  // used: Predictions' split
      QVERIFY(w.log()->toPlainText().contains("keys this trainer does not use"));
      QCOMPARE(w.predictions()->findChild<QComboBox*>("predSplit")->currentText(), QString("val"));
      // No log in Ultralytics' run folders: said so, and the epochs come from results.csv.
      const QString log = trainingLog(w);
      QVERIFY2(log.contains("no log in this run folder"), qPrintable(log.left(500)));
      QVERIFY(log.contains("epoch 30/30"));
    }
    QVERIFY(QDir::setCurrent(cwd));
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(run));
    ywb::gui::PredictionsTab* p = w.predictions();
    QCOMPARE(p->findChild<QComboBox*>("predSplit")->currentText(), QString("test"));
    QCOMPARE(w.hyperparams()->value("exist_ok"), QString("true"));  // here it writes elsewhere: as written
    // One click: Validate runs the run's best.pt on its dataset's test split (the 8 images put there).
    QSignalSpy validated(p, &ywb::gui::PredictionsTab::validated);
    p->findChild<QPushButton*>("validateButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(validated.count(), 1, 120000);
    QVERIFY2(validated.front().front().toBool(), qPrintable(p->findChild<QLabel*>("predSummary")->text()));
    QCOMPARE(int(p->report().detections.size()), 8);
    for (const auto& d : p->report().detections)
      QVERIFY2(QString::fromStdString(d.path).contains("/images/test/"), d.path.c_str());
    w.resize(1440, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(p);
    QVERIFY(w.grab().save(shotsDir() + "/reopen_ultralytics_split_test.png"));
  }

  void ultralytics84ArgsOpen() {
    // No 8.4 run folder is among the fixtures. Ultralytics 8.4 writes the same results.csv and args.yaml as
    // 8.3 but for new arguments: `end2end` (YOLO26's one-to-one head), `optimizer: MuSGD`, and `multi_scale`
    // as a float range (8.3: a bool). This args.yaml is the 8.3 one with those changes.
    const QString run = tmp_.path() + "/runs/detect/train84";
    fs::copy(ultra_.toStdString(), run.toStdString(), fs::copy_options::recursive);
    QString yaml = readAll(run + "/args.yaml");
    QVERIFY(yaml.contains("optimizer: auto\n") && yaml.contains("multi_scale: false\n"));
    yaml.replace("optimizer: auto\n", "optimizer: MuSGD\n");
    yaml.replace("multi_scale: false\n", "multi_scale: 0.0\n");
    yaml.replace("nms: false\n", "nms: false\nend2end: true\n");
    writeAll(run + "/args.yaml", yaml);
    ywb::gui::MainWindow w;
    QVERIFY(w.openPath(run));
    QVERIFY2(w.statusBar()->currentMessage() == "Opened run " + run,
             qPrintable(w.statusBar()->currentMessage()));
    ywb::gui::HyperparamsTab* h = w.hyperparams();
    QCOMPARE(h->value("optimizer"), QString("MuSGD"));
    QCOMPARE(h->value("epochs"), QString("30"));
    QCOMPARE(w.training()->chart("map")->points(1), 30);
    // Each new key is either an argument here (then shown with the run's value) or named as not used.
    const QString status = h->status();
    for (const auto& [key, value] :
         {std::pair<QString, QString>{"end2end", "true"}, {"multi_scale", "0.0"}}) {
      const bool named = status.contains(key);
      QVERIFY2(named || sameValue(h->value(key), value) || (value == "true" && h->value(key) == "true"),
               qPrintable(QString("%1: shown '%2', not named in: %3").arg(key, h->value(key), status)));
    }
  }

 private:
  QTemporaryDir tmp_;
  QString tiny_, ultra_;
};

QTEST_MAIN(TestReopenRunArgs)
#include "test_reopen_run_args.moc"
