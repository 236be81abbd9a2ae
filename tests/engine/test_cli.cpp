// Smoke tests of the `ywb` command line as a user runs it (real process, real files).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using Result = CliResult;

class TestCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void helpListsVerbs() {
    const Result r = ywbRun({"--help"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("doctor"));
    QVERIFY(r.out.contains("dataset synth"));
    const Result v = ywbRun({"doctor", "--help"});
    QCOMPARE(v.code, 0);
    QVERIFY(v.out.contains("--json"));
  }

  void doctorJsonIsTruthful() {
    const Result r = ywbRun({"doctor", "--json", "nvml=/nonexistent/libnvidia-ml.so.1"});
    QCOMPARE(r.code, 0);  // nothing on a CPU machine stops training
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QVERIFY2(!j.isEmpty(), r.out.constData());
    QVERIFY(!j["torch"].toObject()["version"].toString().isEmpty());
    QCOMPARE(j["host"].toObject()["cpu_logical"].toInt(), QThread::idealThreadCount());
    QCOMPARE(j["nvml"].toObject()["available"].toBool(), false);
  }

  void doctorSeesFakeGpus() {
    const Result r = ywbRun({"doctor", "--json", QString("nvml=") + YW_FAKE_NVML});
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["gpus"].toArray().size(), 2);
    QCOMPARE(j["gpus"].toArray()[0].toObject()["compute_capability"].toString(), QString("9.0"));
    const Result t = ywbRun({"doctor", QString("nvml=") + YW_FAKE_NVML});
    QVERIFY(t.out.contains("Fake H100 80GB HBM3"));
  }

  void doctorFailsWhenDiskIsFull() {
    // /proc is a filesystem with no free blocks: the doctor must call that a problem and exit 1.
    const Result r = ywbRun({"doctor", "project=/proc/ywb-runs", "--json"});
    QCOMPARE(r.code, 1);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["ok"].toBool(), false);
    QVERIFY(j["problems"].toArray()[0].toString().contains("free under"));
  }

  void synthWritesDataset() {
    QTemporaryDir dir;
    const Result r =
        ywbRun({"dataset", "synth", "out=" + dir.path(), "train=5", "val=2", "imgsz=96", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["splits"].toObject()["train"].toObject()["images"].toInt(), 5);
    QVERIFY(QFile::exists(dir.path() + "/data.yaml"));
  }

  void badArgumentsAreClearErrors() {
    Result r = ywbRun({"dataset", "synth", "imgsz=big"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("invalid value 'big' for imgsz="), r.err.constData());
    r = ywbRun({"dataset", "synth", "ot=x"});
    QVERIFY(r.err.contains("did you mean 'out='"));
    r = ywbRun({"frobnicate"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("unknown verb 'frobnicate'"));
    QVERIFY2(!r.err.contains("did you mean"), r.err.constData());  // no verb within two edits
  }

  void ultralyticsArgumentsNotTakenSayWhy() {
    // Keys of Ultralytics 8.4.52's train arguments (its checkpoints' train_args hold them all) that are not
    // arguments here: `ywb train` says why instead of "unknown argument", and a cfg= file's are ignored with
    // the same reason. A typo is still answered with the nearest name.
    QTemporaryDir dir;
    Result r = ywbRun({"train", "data=missing.yaml", "copy_paste=0.1"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("'copy_paste=' is an Ultralytics argument this trainer does not take: Copy-Paste "
                            "pastes segmentation masks"),
             r.err.constData());
    r = ywbRun({"train", "data=missing.yaml", "overlap_mask=false"});
    QVERIFY2(r.code != 0 && r.err.contains("a segmentation setting (task=segment)"), r.err.constData());
    r = ywbRun({"train", "data=missing.yaml", "bgrr=0.1"});
    QVERIFY2(r.code != 0 && r.err.contains("did you mean 'bgr='"), r.err.constData());
    const QString cfg = dir.filePath("ultralytics_args.yaml");
    QFile f(cfg);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("task: detect\nepochs: 2\ncompile: false\ncopy_paste_mode: flip\nplots_extra: 1\n");
    f.close();
    r = ywbRun({"train", "cfg=" + cfg, "data=" + dir.filePath("missing.yaml")});
    QVERIFY(r.code != 0);  // the missing data.yaml, after the notes
    QVERIFY2(r.err.contains("ignoring 'compile' (torch.compile is PyTorch's Python compiler"),
             r.err.constData());
    QVERIFY(r.err.contains("ignoring 'copy_paste_mode' (Copy-Paste is not implemented here"));
    QVERIFY(r.err.contains("ignoring 'plots_extra' (not a training argument here)"));
    QVERIFY(r.err.contains("missing.yaml"));
  }

  void verbTyposAndGroupsAreAnswered() {
    // Each expectation is what a user needs next; the suggested names are the registry's, two edits away
    // at most ("trian" -> "train" is one transposition = two edits).
    Result r = ywbRun({"trian", "data=x"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("unknown verb 'trian' (did you mean 'train'?)"), r.err.constData());
    r = ywbRun({"dataset", "chek"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("(did you mean 'dataset check'?)"), r.err.constData());
    QVERIFY(r.err.contains("'dataset' takes dataset check, dataset init, dataset synth"));
    // A group's word alone: an error naming its verbs; with --help, the group's own usage (exit 0).
    r = ywbRun({"bench"});
    QCOMPARE(r.code, 2);
    QVERIFY2(
        r.err.contains("'bench' needs a second word: bench epoch, bench eval, bench loader, bench model, "
                       "bench track, bench train"),
        r.err.constData());
    r = ywbRun({"model", "--help"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("usage: ywb model WORD") && r.out.contains("model info"), r.out.constData());
    QVERIFY(!r.out.contains("bench epoch"));  // only that group's verbs
    // Ultralytics' task word: `detect` is ours and may lead; the other tasks are named as unsupported.
    r = ywbRun({"detect", "model", "info", "model=yolov8n.yaml", "--json"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, ywbRun({"model", "info", "model=yolov8n.yaml", "--json"}).out);
    r = ywbRun({"segment", "train", "data=x.yaml"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("Ultralytics' task 'segment' is not supported"), r.err.constData());
    // A second bare word after a whole verb is an argument without '=', not another verb.
    r = ywbRun({"train", "yolov8n.yaml"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("unexpected word 'yolov8n.yaml' after 'train': arguments are key=value"),
             r.err.constData());
  }

  void predictLineCountsEachClass() {
    // Each image's line names what was found per class, as Ultralytics' predict line does ("2 stars, 1
    // ring"; "no detections"). The expected lines are built from the same run's --json output (each box's
    // class name) and the six names' plurals written here, on Ultralytics 8.4's YOLO26 checkpoint and six
    // images of the shapes set it was trained on (the first six at conf 0.1 include "3 crosses").
    const QMap<QString, QString> plurals = {{"ellipse", "ellipses"},   {"rectangle", "rectangles"},
                                            {"triangle", "triangles"}, {"star", "stars"},
                                            {"cross", "crosses"},      {"ring", "rings"}};
    QTemporaryDir dir;
    const QString images = dir.path() + "/images";
    QVERIFY(QDir().mkpath(images));
    const QString val = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";
    const QStringList files = QDir(val).entryList({"*.jpg"}, QDir::Files, QDir::Name).mid(0, 6);
    QCOMPARE(files.size(), 6);
    for (const QString& f : files) QVERIFY(QFile::copy(val + "/" + f, images + "/" + f));
    const QStringList args = {
        "predict",          "weights=" + QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt",
        "source=" + images, "conf=0.1",
        "device=cpu",       "project=" + dir.path()};
    const Result js = ywbRun(args + QStringList{"name=json", "--json"});
    QCOMPARE(js.code, 0);
    const Result text = ywbRun(args + QStringList{"name=text"});
    QCOMPARE(text.code, 0);
    const QJsonArray imgs = QJsonDocument::fromJson(js.out).object()["images"].toArray();
    QCOMPARE(imgs.size(), 6);
    int found = 0;
    for (const auto& v : imgs) {
      const QJsonObject img = v.toObject();
      QMap<int, QPair<QString, int>> per;  // class -> (name, count), in class order
      for (const auto& d : img["detections"].toArray()) {
        const QJsonObject o = d.toObject();
        per[o["class"].toInt()].first = o["name"].toString();
        ++per[o["class"].toInt()].second;
      }
      QStringList parts;
      for (const auto& [name, n] : per)
        parts << QString::number(n) + " " + (n > 1 ? plurals.value(name) : name);
      const QString want =
          img["image"].toString() + ": " + (parts.isEmpty() ? "no detections" : parts.join(", ")) + " (";
      QVERIFY2(text.out.contains(want.toUtf8()), qPrintable(want + "\n" + text.out));
      found += int(per.size() > 1 || (!per.isEmpty() && per.first().second > 1));
    }
    QVERIFY2(found > 0, "no image had two detections: the plural went untested");
  }

  // source= as Ultralytics takes it besides an image or a folder: a glob pattern and a .txt list (relative
  // entries from the list's folder). The expected images are the folder's own listing through the same
  // wildcard (QDir), and the list's two existing entries; its missing entry is reported, not fatal.
  void predictTakesPatternsAndLists() {
    QTemporaryDir dir;
    const QString val = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val";
    const QStringList want = QDir(val).entryList({"val_0000?.jpg"}, QDir::Files, QDir::Name);
    QCOMPARE(want.size(), 10);
    const QStringList common = {
        "predict", "weights=" + QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt",
        "device=cpu", "project=" + dir.path(), "--json"};
    Result r = ywbRun(common + QStringList{"source=" + val + "/val_0000?.jpg", "name=glob"});
    QCOMPARE(r.code, 0);
    QStringList got;
    for (const auto& v : QJsonDocument::fromJson(r.out).object()["images"].toArray())
      got << QFileInfo(v.toObject()["image"].toString()).fileName();
    QCOMPARE(got, want);

    QFile list(dir.path() + "/list.txt");
    QVERIFY(list.open(QIODevice::WriteOnly));
    list.write((val + "/" + want[3] + "\n# a comment\n" + val + "/" + want[7] + "\ngone.jpg\n").toUtf8());
    list.close();
    r = ywbRun(common + QStringList{"source=" + list.fileName(), "name=list"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["images"].toArray().size(), 2);
    QCOMPARE(j["skipped"].toArray().size(), 1);
    QVERIFY2(j["skipped"].toArray()[0].toString().endsWith("gone.jpg: listed, but no such file"),
             qPrintable(j["skipped"].toArray()[0].toString()));

    // Two images of one name in different folders: both pictures and label files kept (x, x_2).
    QVERIFY(QDir().mkpath(dir.path() + "/two/a") && QDir().mkpath(dir.path() + "/two/b"));
    QVERIFY(QFile::copy(val + "/" + want[0], dir.path() + "/two/a/x.jpg"));
    QVERIFY(QFile::copy(val + "/" + want[1], dir.path() + "/two/b/x.jpg"));
    r = ywbRun(common + QStringList{"source=" + dir.path() + "/two", "name=same"});
    QCOMPARE(r.code, 0);
    QCOMPARE(QDir(dir.path() + "/same").entryList({"*.jpg"}, QDir::Files), (QStringList{"x.jpg", "x_2.jpg"}));
    QCOMPARE(QDir(dir.path() + "/same/labels").entryList({"*.txt"}, QDir::Files),
             (QStringList{"x.txt", "x_2.txt"}));
    r = ywbRun(common + QStringList{"source=" + val + "/*.png", "name=none"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("the pattern matches no file"), r.err.constData());
  }

  // classes= keeps one class: per image, exactly the unfiltered run's detections of that class (box and
  // confidence), on both paths (NMS-free, and one-to-many + NMS, where the class-aware NMS of the other
  // classes cannot touch them). Label files have Ultralytics' five columns unless save_conf adds a sixth,
  // which is the JSON's confidence rounded to 5 decimals.
  void predictKeepsOnlyTheClassesAsked() {
    QTemporaryDir dir;
    const QString images =
        QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/images/val/val_000[0-2]?.jpg";
    const QStringList common = {
        "predict",
        "weights=" + QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolo26n-shapes.pt",
        "source=" + images,
        "conf=0.1",
        "device=cpu",
        "project=" + dir.path(),
        "--json"};
    using Dets = QMap<QString, QList<QJsonObject>>;  // image -> detections
    auto detections = [](const Result& r) {
      Dets d;
      for (const auto& v : QJsonDocument::fromJson(r.out).object()["images"].toArray())
        for (const auto& det : v.toObject()["detections"].toArray())
          d[v.toObject()["image"].toString()] << det.toObject();
      return d;
    };
    for (const QString e2e : {"true", "false"}) {
      const Result all = ywbRun(common + QStringList{"end2end=" + e2e, "name=all" + e2e});
      QCOMPARE(all.code, 0);
      const Dets every = detections(all);
      QMap<int, int> per_class;
      for (const auto& list : every)
        for (const auto& d : list) ++per_class[d["class"].toInt()];
      QVERIFY(!per_class.isEmpty());
      const int cls = std::max_element(per_class.begin(), per_class.end()).key();  // the most frequent
      QVERIFY2(per_class.size() > 1, "one class only: the filter would go untested");
      const Result one =
          ywbRun(common + QStringList{"end2end=" + e2e, "classes=[" + QString::number(cls) + "]",
                                      "save_conf=true", "name=one" + e2e});
      QCOMPARE(one.code, 0);
      const Dets kept = detections(one);
      int n = 0;
      for (auto it = every.begin(); it != every.end(); ++it) {
        QList<QJsonObject> want;
        for (const auto& d : it.value())
          if (d["class"].toInt() == cls) want << d;
        QCOMPARE(kept.value(it.key()), want);
        n += int(want.size());
      }
      QCOMPARE(n, per_class[cls]);
      // Columns: five without save_conf, six with it (the confidence, as the JSON's to 5 decimals).
      const QString stem = QFileInfo(kept.firstKey()).completeBaseName();
      QFile five(dir.path() + "/all" + e2e + "/labels/" + stem + ".txt"),
          six(dir.path() + "/one" + e2e + "/labels/" + stem + ".txt");
      QVERIFY(five.open(QIODevice::ReadOnly) && six.open(QIODevice::ReadOnly));
      QCOMPARE(QString(five.readLine()).split(' ').size(), 5);
      const QStringList row = QString(six.readLine()).trimmed().split(' ');
      QCOMPARE(row.size(), 6);
      QCOMPARE(row[0].toInt(), cls);
      QCOMPARE(row[5], QString::number(kept.first().first()["confidence"].toDouble(), 'f', 5));
    }
  }

  // Ultralytics' CLI names the weights model= in val, predict and export; ours takes it as weights=: the
  // same output for the same file, and an error naming both when they differ.
  void modelIsUltralyticsNameForWeights() {
    const QString pt = QString(YW_SHARED_DIR) + "/fixtures/ultralytics84/yolov8n-shapes.pt";
    const Result w = ywbRun({"weights", "info", "weights=" + pt, "--json"});
    const Result m = ywbRun({"weights", "info", "model=" + pt, "--json"});
    QCOMPARE(w.code, 0);
    QCOMPARE(m.code, 0);
    QCOMPARE(m.out, w.out);
    for (const char* verb : {"val", "predict", "export"}) {
      const Result r = ywbRun({verb, "weights=a.pt", "model=" + pt});
      QCOMPARE(r.code, 1);
      QVERIFY2(r.err.contains("weights=a.pt and model=" + pt.toUtf8() + " name two files"),
               r.err.constData());
    }
  }

  void cxxRuntimeIsLoadedBeforeLibTorch() {
    // The dynamic linker binds a symbol to the first loaded library that defines it; pip's LibTorch
    // exports its own copies of C++ runtime functions, and `ywb bench epoch` died in one of them on an
    // H100 (a null call inside LibTorch's std::filesystem::remove_all). So libstdc++ must come before any
    // LibTorch library among ywb's needed libraries (engine/CMakeLists.txt), read here from the ELF header.
    QProcess p;
    p.start("readelf", {"-d", YW_CLI_PATH});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QStringList needed;
    const QRegularExpression re(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
    for (auto it = re.globalMatch(QString::fromLocal8Bit(p.readAllStandardOutput())); it.hasNext();)
      needed << it.next().captured(1);
    const auto first = [&](const QString& prefix) {
      for (int i = 0; i < needed.size(); ++i)
        if (needed[i].startsWith(prefix)) return i;
      return -1;
    };
    const int runtime = first("libstdc++.so"), torch = first("libtorch"), c10 = first("libc10");
    QVERIFY2(runtime >= 0 && torch >= 0 && c10 >= 0, qPrintable(needed.join(' ')));
    QVERIFY2(runtime < torch && runtime < c10, qPrintable(needed.join(' ')));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
