// The training-argument table (ywb/train_args.h): text parsing with ranges, YAML round trip, and the
// augmentation rows that AugmentParams is generated from.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli_runner.h"
#include "core/atomic_file.h"
#include "core/text.h"
#include "support/error_of.h"
#include "support/tiny_run.h"
#include "ywb/augment.h"
#include "ywb/error.h"
#include "ywb/train_args.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;

class TestTrainArgs : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void trainArgs() {
    ywb::TrainArgs a;
    QCOMPARE(a.lr0, 0.01);
    QCOMPARE(a.batch, 16);
    QCOMPARE(a.close_mosaic, 10);
    QVERIFY(a.set("epochs", "3"));
    QCOMPARE(a.epochs, 3);
    QVERIFY(!a.set("no_such_arg", "1"));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, a.set("lr0", "fast"));
    try {
      a.set("mosaic", "1.5");
      QFAIL("expected a range error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("mosaic=1.5 is outside the valid range [0, 1]"), e.what());
    }
    a.imgsz = 300;
    QVERIFY_THROWS_EXCEPTION(ywb::Error, a.validate());
    a.imgsz = 320;
    a.optimizer = "Adagrad";  // not among Ultralytics' optimizers
    QVERIFY_THROWS_EXCEPTION(ywb::Error, a.validate());
    a.optimizer = "SGD";
    a.validate();
    // Names are matched without case, as Ultralytics does, and stored in its spelling.
    QVERIFY(a.set("optimizer", "rmsprop"));
    QCOMPARE(a.optimizer, std::string("RMSProp"));
    a.validate();
    a.optimizer = "SGD";
    // YAML round trip, and an Ultralytics-style file with keys we do not use and nulls.
    QTemporaryDir dir;
    const std::string p = dir.path().toStdString() + "/args.yaml";
    ywb::writeFileAtomic(p, ywb::trainArgsToYaml(a));
    ywb::TrainArgs b;
    QVERIFY(ywb::loadTrainArgsYaml(p, b).empty());
    QCOMPARE(ywb::trainArgsToYaml(b), ywb::trainArgsToYaml(a));
    QCOMPARE(ywb::changedTrainArgs(b).at("epochs"), std::string("3"));
    ywb::writeFileAtomic(p, "task: detect\nmode: train\nlr0: 0.02\npretrained: null\ncopy_paste: 0.0\n");
    ywb::TrainArgs c;
    const auto unknown = ywb::loadTrainArgsYaml(p, c);
    QCOMPARE(unknown, (std::vector<std::string>{"task", "mode", "copy_paste"}));
    QCOMPARE(c.lr0, 0.02);
    ywb::writeFileAtomic(p, "lr0: 0.02\nepochs: [1, 2\n");
    try {
      ywb::loadTrainArgsYaml(p, c);
      QFAIL("expected a YAML error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("broken YAML"), e.what());
    }
    ywb::writeFileAtomic(p, "lr0: 0.02\nbatch: many\n");
    try {
      ywb::loadTrainArgsYaml(p, c);
      QFAIL("expected a value error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("args.yaml:2: batch=many"), e.what());
    }
  }

  void ultralyticsBooleanPathsAndSplit() {
    // Ultralytics' args.yaml writes `pretrained: false` and `resume: false` (its arguments are a boolean or a
    // path): off here, not a file named "false". Quoted, it is text (a path). Its `split` is the validation
    // split (runValidationSplit); ours writes none: val.
    QTemporaryDir dir;
    const std::string p = dir.path().toStdString() + "/args.yaml";
    ywb::writeFileAtomic(p, "pretrained: false\nresume: false\nsplit: test\nepochs: 30\n");
    ywb::TrainArgs a;
    QCOMPARE(ywb::loadTrainArgsYaml(p, a), std::vector<std::string>{"split"});
    QCOMPARE(a.pretrained, std::string());
    QCOMPARE(a.resume, std::string());
    QCOMPARE(a.epochs, 30);
    QCOMPARE(ywb::runValidationSplit(p), std::string("test"));
    ywb::writeFileAtomic(p, "pretrained: \"false\"\nresume: true\n");
    ywb::TrainArgs b;
    ywb::loadTrainArgsYaml(p, b);
    QCOMPARE(b.pretrained, std::string("false"));
    QCOMPARE(b.resume, std::string());
    ywb::writeFileAtomic(p, ywb::trainArgsToYaml(ywb::TrainArgs{}));
    QCOMPARE(ywb::runValidationSplit(p), std::string("val"));
    ywb::writeFileAtomic(p, "epochs: 3\nsplit: holdout\n");
    try {
      ywb::runValidationSplit(p);
      QFAIL("expected a split error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("args.yaml:2: split=holdout: expected val, test or train"),
               e.what());
    }
  }

  // `resume=true` on a command line, as Ultralytics takes it: the run under project= saved last (by the
  // modification time of weights/last.safetensors, set here by hand), or model= when that is a run's
  // checkpoint; `resume=false` is no resume; an existing folder named "true" is a path.
  void resumeTrueFindsTheRun() {
    QTemporaryDir dir;
    const std::string project = dir.path().toStdString() + "/runs";
    const auto run = [&](const std::string& name, int minutes_ago) {
      const fs::path last = fs::path(project) / name / "weights/last.safetensors";
      fs::create_directories(last.parent_path());
      ywb::writeFileAtomic(last.string(), "x");
      fs::last_write_time(last, fs::file_time_type::clock::now() - std::chrono::minutes(minutes_ago));
    };
    run("train", 30);
    run("train2", 5);  // the newest
    run("train3", 60);
    fs::create_directories(project + "/train4/weights");  // died before its first checkpoint: not a candidate
    ywb::TrainArgs a;
    a.set("project", project);
    a.set("resume", "True");
    const std::string note = ywb::resolveResumeFlag(a);
    QCOMPARE(a.resume, project + "/train2");
    QVERIFY2(
        QString::fromStdString(note).contains("continuing " + QString::fromStdString(project) + "/train2"),
        note.c_str());

    ywb::TrainArgs b;
    b.set("project", project);
    b.set("model", project + "/train3/weights/last.safetensors");
    b.set("resume", "true");
    ywb::resolveResumeFlag(b);
    QCOMPARE(b.resume, project + "/train3/weights/last.safetensors");
    QVERIFY(std::find(b.given.begin(), b.given.end(), "model") == b.given.end());  // not a change asked for

    ywb::TrainArgs c;
    c.set("resume", "false");
    QCOMPARE(ywb::resolveResumeFlag(c), std::string());
    QCOMPARE(c.resume, std::string());

    ywb::TrainArgs d;
    d.set("project", dir.path().toStdString() + "/nothing");
    d.set("resume", "true");
    const QString none = qErrorOf([&] { ywb::resolveResumeFlag(d); });
    QVERIFY2(none.contains("resume=true: no run with weights/last.safetensors under"), qPrintable(none));

    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    fs::create_directories("true");
    ywb::TrainArgs e;
    e.set("project", project);
    e.set("resume", "true");
    ywb::resolveResumeFlag(e);
    QVERIFY(QDir::setCurrent(cwd));
    QCOMPARE(e.resume, std::string("true"));  // the folder, left for the checkpoint lookup to judge
  }

  void multiScaleAndClsPwOf84() {
    // Ultralytics 8.4's multi_scale (a float range, 8.3: a bool) and cls_pw (new): off (0.0) by default, both
    // in [0, 1], written to args.yaml and read back.
    ywb::TrainArgs a;
    QCOMPARE(a.multi_scale, 0.0);
    QCOMPARE(a.cls_pw, 0.0);
    QVERIFY(a.set("multi_scale", "0.25"));
    QVERIFY(a.set("cls_pw", "0.5"));
    QCOMPARE(a.multi_scale, 0.25);
    QCOMPARE(a.cls_pw, 0.5);
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"cls_pw", "2"}, {"cls_pw", "-0.1"}, {"multi_scale", "1.5"}}) {
      try {
        a.set(key, value);
        QFAIL("expected a range error");
      } catch (const ywb::Error& e) {
        QVERIFY2(QString(e.what()).contains(
                     QString::fromStdString(key + "=" + value + " is outside the valid range [0, 1]")),
                 e.what());
      }
    }
    // 8.3's bool: true drew sizes in [0.5, 1.5] x imgsz, which is 0.5 here; false is off. Numbers stay
    // numbers.
    QVERIFY(a.set("multi_scale", "True"));
    QCOMPARE(a.multi_scale, 0.5);
    QVERIFY(a.set("multi_scale", "false"));
    QCOMPARE(a.multi_scale, 0.0);
    QVERIFY(a.set("multi_scale", "1"));
    QCOMPARE(a.multi_scale, 1.0);
    QVERIFY_THROWS_EXCEPTION(ywb::Error, a.set("cls_pw", "true"));  // no bool form: cls_pw is new in 8.4
    // An 8.3 args.yaml (`multi_scale: false` / `true`) and an 8.4 one (`multi_scale: 0.0`, `cls_pw: 0.0`)
    // load with no unknown keys.
    ywb::TrainArgs b, c;
    QVERIFY(ywb::loadTrainArgsYamlText("multi_scale: true\nepochs: 3\n", "8.3 args.yaml", b).empty());
    QCOMPARE(b.multi_scale, 0.5);
    QVERIFY(ywb::loadTrainArgsYamlText("multi_scale: 0.0\ncls_pw: 0.0\ncls: 0.5\n", "8.4", c).empty());
    QCOMPARE(c.multi_scale, 0.0);
    // Written after imgsz and after cls (as Ultralytics orders them), and read back.
    a.multi_scale = 0.25;
    const std::string yaml = ywb::trainArgsToYaml(a);
    QVERIFY2(yaml.find("\nmulti_scale: 0.25\n") != std::string::npos, yaml.c_str());
    QVERIFY2(yaml.find("\ncls: 0.5\ncls_pw: 0.5\n") != std::string::npos, yaml.c_str());
    ywb::TrainArgs d;
    QVERIFY(ywb::loadTrainArgsYamlText(yaml, "args.yaml", d).empty());
    QCOMPARE(d.multi_scale, 0.25);
    QCOMPARE(d.cls_pw, 0.5);
    // The registry row the GUI's tab and the CLI's help are made from.
    int rows = 0;
    for (const auto& spec : ywb::trainArgSpecs()) {
      if (spec.name != "multi_scale" && spec.name != "cls_pw") continue;
      ++rows;
      QCOMPARE(spec.type, ywb::ArgType::Double);
      QCOMPARE(spec.min, 0.0);
      QCOMPARE(spec.max, 1.0);
      QCOMPARE(spec.default_text, std::string("0"));
      QCOMPARE(spec.group, std::string(spec.name == "cls_pw" ? "loss" : "model"));
    }
    QCOMPARE(rows, 2);
    // The command line refuses what the table refuses, naming the range.
    const CliResult r = ywbRun({"train", "data=/nonexistent/data.yaml", "cls_pw=2"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("cls_pw=2 is outside the valid range [0, 1]"), r.err.constData());
  }

  void augmentParamsAreTheAugmentationRows() {
    // Every augmentation row of the spec table is an AugmentParams field with the same default and range,
    // and no field exists outside it (the ranges were once 1, 10 and 0.01 for translate/scale/perspective
    // against TrainArgs' 0.9, 0.95 and 0.001).
    std::vector<std::string> rows;
    const ywb::AugmentParams defaults;
    for (const auto& spec : ywb::trainArgSpecs()) {
      if (spec.group != "augmentation") continue;
      rows.push_back(spec.name);
      QCOMPARE(defaults.get(spec.name), std::stod(spec.default_text));
      ywb::AugmentParams p;
      p.set(spec.name, spec.max);
      p.validate();  // the table's maximum is accepted
      p.set(spec.name, spec.max * 1.5 + 1e-6);
      QVERIFY_THROWS_EXCEPTION(ywb::Error, p.validate());
    }
    QCOMPARE(ywb::AugmentParams::names(), rows);
    // augmentParamsOf copies the typed values (no text round trip that could round them).
    ywb::TrainArgs a;
    a.scale = 0.123456789012345;
    a.mixup = 0.25;
    const ywb::AugmentParams p = ywb::augmentParamsOf(a);
    QCOMPARE(p.scale, a.scale);
    QCOMPARE(p.mixup, 0.25);
  }

  // pretrained=True / False on a command line (Ultralytics' boolean form, its default True): accepted as its
  // args.yaml form is, not read as a file named "True"; a YAML model then trains from scratch.
  void pretrainedAsBooleanOnTheCommandLine() {
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {8, 4, 64});
    for (const QString v : {"True", "false"}) {
      const CliResult r =
          ywbRun({"train", QString::fromStdString("data=" + data), "model=yolov8n.yaml", "pretrained=" + v,
                  "epochs=1", "imgsz=64", "batch=4", "workers=0", "device=cpu", "amp=false", "val=false",
                  "project=" + dir.path(), "name=" + v});
      QVERIFY2(r.code == 0, r.err.constData());
      QCOMPARE(r.err.contains("pretrained=true: a .pt model= starts from its weights"), v == "True");
    }
  }

  // Ultralytics' cache takes True/ram (in memory: ours), disk (.npy files; read each epoch here, as false) or
  // False, on the command line and in an args.yaml of such a run.
  void ultralyticsCacheWords() {
    ywb::TrainArgs a;
    for (const auto& [word, on] : std::vector<std::pair<std::string, bool>>{
             {"ram", true}, {"RAM", true}, {"disk", false}, {"True", true}, {"false", false}}) {
      a.cache = !on;
      QVERIFY(a.set("cache", word));
      QVERIFY2(a.cache == on, word.c_str());
    }
    QVERIFY(qErrorOf([&] { a.set("cache", "gpu"); }).contains("cache=gpu: expected true or false"));
    ywb::TrainArgs b;
    QVERIFY(ywb::loadTrainArgsYamlText("cache: ram\nepochs: 3\n", "args.yaml", b).empty());
    QVERIFY(b.cache);
    QCOMPARE(b.epochs, 3);
  }

  // Ultralytics' three forms of batch (its train settings: 16, -1 = AutoBatch at 60% of the GPU's memory,
  // 0.70 = AutoBatch at that fraction), read back as written so args.yaml round-trips; anything else is an
  // error naming all three.
  void batchSizeAutoBatchAndFraction() {
    ywb::TrainArgs a;
    QVERIFY(a.set("batch", "0.70"));
    QCOMPARE(a.batch, -1);
    QCOMPARE(a.batch_fraction, 0.70);
    QCOMPARE(a.get("batch"), std::string("0.7"));
    QCOMPARE(ywb::changedTrainArgs(a).at("batch"), std::string("0.7"));
    a.validate();
    ywb::TrainArgs b;
    QVERIFY(ywb::loadTrainArgsYamlText(ywb::trainArgsToYaml(a), "args.yaml", b).empty());
    QCOMPARE(b.batch, -1);
    QCOMPARE(b.batch_fraction, 0.70);
    QVERIFY(QString::fromStdString(ywb::trainArgsToYaml(b)).contains("\nbatch: 0.7\n"));
    QVERIFY(a.set("batch", "0.99999999999"));  // written so that it reads back as a fraction, not as 1
    ywb::TrainArgs c;
    QVERIFY(c.set("batch", a.get("batch")));
    QCOMPARE(c.batch, -1);
    QCOMPARE(c.batch_fraction, 0.99999999999);
    QVERIFY(a.set("batch", "-1"));  // AutoBatch at its default fraction: no fraction kept
    QCOMPARE(a.batch_fraction, 0.0);
    QCOMPARE(a.get("batch"), std::string("-1"));
    QVERIFY(a.set("batch", "0.5"));
    QVERIFY(a.set("batch", "32"));  // a size clears the fraction
    QCOMPARE(a.batch, 32);
    QCOMPARE(a.batch_fraction, 0.0);
    QCOMPARE(a.get("batch"), std::string("32"));
    QVERIFY(a.set("batch", "64.0"));  // a whole number written as a float (YAML from Python)
    QCOMPARE(a.batch, 64);
    for (const char* bad : {"0", "1.5", "-0.5", "many", "", "nan", "inf", "0x10"}) {
      const QString e = qErrorOf([&] { a.set("batch", bad); });
      QVERIFY2(e.contains(QString("batch=%1: expected a batch size").arg(bad)) &&
                   e.contains("-1 for AutoBatch") && e.contains("between 0 and 1"),
               qPrintable(e));
    }
    QVERIFY(qErrorOf([&] {
              a.set("batch", "5000");
            }).contains("batch=5000 is outside the valid range [-1, 4096]"));
    QVERIFY(
        qErrorOf([&] { a.set("batch", "-2"); }).contains("batch=-2 is outside the valid range [-1, 4096]"));
    QCOMPARE(a.batch, 64);  // a refused value changes nothing
    // Editors offer it as a number, and its help names the three forms with AutoBatch's own default.
    const ywb::ArgSpec& spec = ywb::trainArgSpec("batch");
    QVERIFY(spec.type == ywb::ArgType::Double);
    QVERIFY2(QString::fromStdString(spec.help).contains("60% of the GPU's memory") &&
                 QString::fromStdString(spec.help).contains("0.70"),
             spec.help.c_str());
  }

  // core/text.h, the small rules every parser above goes through. Expected values by hand: white space is
  // std::isspace's six characters; only ASCII letters change case (the UTF-8 bytes of "Ä", C3 84, do not);
  // the switch words are Ultralytics' CLI's.
  void textRules() {
    QCOMPARE(ywb::trimmed(" \t\v\f a b \r\n"), std::string("a b"));
    QCOMPARE(ywb::trimmed(" \n "), std::string());
    QCOMPARE(ywb::trimmed(""), std::string());
    const std::string a_umlaut = "\xC3\x84";  // "Ä" in UTF-8
    QCOMPARE(ywb::asciiLower(a_umlaut + "Bc.JPG"), a_umlaut + "bc.jpg");
    for (const char* on : {"true", "TRUE", "Yes", "on", "1"})
      QCOMPARE(ywb::switchWord(on), std::optional<bool>(true));
    for (const char* off : {"false", "No", "OFF", "0"})
      QCOMPARE(ywb::switchWord(off), std::optional<bool>(false));
    for (const char* neither : {"", "2", "y", " true", "truex"}) QVERIFY2(!ywb::switchWord(neither), neither);
    // Extensions: the last dot of the file name (not of a folder), any letter case; a dot-file's name is
    // no extension (std::filesystem's rule), nor is a bare trailing dot.
    QVERIFY(ywb::hasExtension("a/B.JPG", {"png", "jpg"}));
    QVERIFY(ywb::hasExtension("x.tar.gz", {"gz"}));
    QVERIFY(!ywb::hasExtension("x.tar.gz", {"tar"}));
    QVERIFY(!ywb::hasExtension("a/.jpg", {"jpg"}));
    QVERIFY(!ywb::hasExtension("a.jpg/x", {"jpg"}));
    QVERIFY(!ywb::hasExtension("x.", {""}));
    QVERIFY(!ywb::hasExtension("x.jpgx", {"jpg"}));
    QCOMPARE(ywb::commaList({"jpg", "png"}), std::string("jpg, png"));
    QCOMPARE(ywb::commaList({}), std::string());
    // The CLI's boolean arguments and TrainArgs read the same words.
    ywb::TrainArgs a;
    QVERIFY(a.set("amp", "Off") && !a.amp);
    QVERIFY(a.set("amp", "ON") && a.amp);
  }

  void previewRefusesWhatTrainRefuses() {
    // scale=2 is outside TrainArgs' [0, 0.95]; `ywb preview` once accepted up to 10.
    const CliResult r = ywbRun({"preview", "data=/nonexistent/data.yaml", "scale=2"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("scale=2 is outside the valid range [0, 0.95]"), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestTrainArgs)
#include "test_train_args.moc"
