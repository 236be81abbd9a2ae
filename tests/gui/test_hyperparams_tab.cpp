// The Hyperparameters tab generated from ywb::trainArgSpecs(): every argument has an editor, ranges are
// enforced, changes are highlighted, and load -> edit -> save -> load round-trips through YAML, including a
// user's Ultralytics YAML with keys this trainer does not use.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "augmentation_tab.h"
#include "hyperparams_tab.h"
#include "support/answer_file_dialog.h"
#include "support/screenshots.h"
#include "support/tiny_run.h"
#include "train_args_model.h"
#include "ywb/doctor.h"
#include "ywb/train_args.h"

using ywb::gui::HyperparamsTab;

class TestHyperparamsTab : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everySpecHasAnEditorWithItsRange() {
    HyperparamsTab tab;
    for (const ywb::ArgSpec& s : ywb::trainArgSpecs()) {
      QWidget* ed = tab.editor(QString::fromStdString(s.name));
      QVERIFY2(ed, s.name.c_str());
      QVERIFY(!ed->toolTip().isEmpty());
      if (auto* d = qobject_cast<QDoubleSpinBox*>(ed)) {
        QCOMPARE(d->minimum(), s.min);
        QCOMPARE(d->maximum(), s.max);
      }
    }
    QVERIFY(tab.modified().isEmpty());  // fresh tab = Ultralytics defaults
  }

  void ampFieldSaysWhatThisCpuDoes() {
    // The note under amp is the engine's answer for this CPU (ywb::cpuBf16Support, the one the trainer's
    // AMP check and `ywb doctor` use), not a second reading of /proc/cpuinfo.
    HyperparamsTab tab;
    auto* note = tab.findChild<QLabel*>("ampCpuNote");
    QVERIFY(note);
    const ywb::CpuBf16 c = ywb::cpuBf16Support();
    QVERIFY(note->text().contains(QString::fromStdString(c.summary)));
    QVERIFY(note->text().contains(c.native ? "trains in bf16 where" : "trains in fp32 here unless"));
    // What a user sees: the tab scrolled to the note, saved to screenshots/hyperparameters_amp_note.png.
    tab.resize(980, 600);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    auto* scroll = tab.findChild<QScrollArea*>();
    QVERIFY(scroll);
    scroll->ensureWidgetVisible(note);
    QCoreApplication::processEvents();
    QVERIFY(note->isVisible() && !note->visibleRegion().isEmpty());
    // It sits right under the two fields it explains: below amp_dtype, above val_amp.
    const int y = note->mapTo(&tab, QPoint(0, 0)).y();
    QVERIFY(y > tab.editor("amp_dtype")->mapTo(&tab, QPoint(0, 0)).y());
    QVERIFY(y < tab.editor("val_amp")->mapTo(&tab, QPoint(0, 0)).y());
    const QString shots = shotsDir();
    QVERIFY(tab.grab().save(shots + "/hyperparameters_amp_note.png"));
  }

  void optimizerAndEnd2EndAreOffered() {
    // optimizer: the engine's names (MuSGD among them), and the help says what auto picks (Ultralytics 8.4's
    // rule, in the words of its owner beside chooseOptimizer).
    HyperparamsTab tab;
    auto* opt = qobject_cast<QComboBox*>(tab.editor("optimizer"));
    QVERIFY(opt);
    QVERIFY(opt->findText("MuSGD") >= 0);
    // ... and every other optimizer Ultralytics 8.4 offers (its `optimizer` choices)
    for (const char* name : {"SGD", "AdamW", "Adam", "Adamax", "NAdam", "RAdam", "RMSProp", "auto"})
      QVERIFY2(opt->findText(name) >= 0, name);
    QVERIFY2(opt->toolTip().contains("MuSGD (lr 0.01, momentum 0.9) for more than 10000 iterations"),
             qPrintable(opt->toolTip()));
    QVERIFY(tab.setValue("optimizer", "MuSGD"));
    QCOMPARE(tab.args().optimizer, std::string("MuSGD"));
    // end2end: true/false, on by default (an end-to-end model validates NMS-free), with its help.
    auto* e2e = qobject_cast<QCheckBox*>(tab.editor("end2end"));
    QVERIFY(e2e);
    QVERIFY(e2e->isChecked());
    QVERIFY2(e2e->toolTip().contains("one-to-many head with NMS"), qPrintable(e2e->toolTip()));
    e2e->setChecked(false);
    QCOMPARE(tab.args().end2end, false);
    QVERIFY(tab.modified().contains("end2end"));
    QVERIFY(!tab.setValue("end2end", "maybe"));
  }

  void multiScaleAndClsPwAreOffered() {
    // Ultralytics 8.4's multi_scale and cls_pw: number editors with the table's [0, 1] and its help; out of
    // range refused; an 8.3 YAML's `multi_scale: true` shows as its 8.4 equivalent, 0.5.
    HyperparamsTab tab;
    for (const char* name : {"multi_scale", "cls_pw"}) {
      auto* ed = qobject_cast<QDoubleSpinBox*>(tab.editor(name));
      QVERIFY2(ed, name);
      QCOMPARE(ed->minimum(), 0.0);
      QCOMPARE(ed->maximum(), 1.0);
      QVERIFY2(ed->toolTip().contains("range: 0 .. 1"), qPrintable(ed->toolTip()));
    }
    QVERIFY(tab.editor("cls_pw")->toolTip().contains("Class weighting power"));
    QVERIFY(!tab.setValue("cls_pw", "2"));
    QCOMPARE(tab.args().cls_pw, 0.0);
    QVERIFY(tab.setValue("cls_pw", "0.5"));
    QCOMPARE(tab.args().cls_pw, 0.5);
    QVERIFY(tab.setValue("multi_scale", "true"));
    QCOMPARE(tab.args().multi_scale, 0.5);
    QCOMPARE(tab.value("multi_scale"), QString("0.5"));
  }

  void freezeKeepsWhatIsTyped() {
    // freeze (Ultralytics' transfer learning) is a text field: typed key by key, "5,0" becomes [0, 5] without
    // the field being rewritten under the cursor ("5," alone already means 5); bad text is refused with the
    // engine's message; an args.yaml list shows in its canonical form.
    HyperparamsTab tab;
    auto* ed = qobject_cast<QLineEdit*>(tab.editor("freeze"));
    QVERIFY(ed);
    QVERIFY(ed->toolTip().contains("N freezes layers 0 to N-1"));
    ed->setFocus();
    QTest::keyClicks(ed, "5,0");
    QCOMPARE(ed->text(), QString("5,0"));
    QCOMPARE(tab.args().freeze, std::string("[0, 5]"));
    QVERIFY(tab.modified().contains("freeze"));
    ed->clear();
    QCOMPARE(tab.args().freeze, std::string());
    QVERIFY(!tab.setValue("freeze", "backbone"));
    auto* status = tab.findChild<QLabel*>("hyperStatus");
    QVERIFY(status);
    QVERIFY2(status->text().contains("freeze=backbone: 'backbone' is not a layer number"),
             qPrintable(status->text()));
    QTemporaryDir dir;
    QFile f(dir.path() + "/args.yaml");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("freeze: [2, 1]\n");
    f.close();
    QString error;
    QVERIFY2(tab.loadYaml(f.fileName(), &error), qPrintable(error));
    QCOMPARE(ed->text(), QString("[1, 2]"));
  }

  void rangesAreEnforced() {
    HyperparamsTab tab;
    // lr0's range is [0, 1] in the spec table: 1.5 is rejected by the engine's check and nothing changes.
    QVERIFY(!tab.setValue("lr0", "1.5"));
    QCOMPARE(tab.args().lr0, 0.01);
    // The editor itself clamps typed values to the range (QDoubleSpinBox): 5 -> 1.
    auto* lr0 = qobject_cast<QDoubleSpinBox*>(tab.editor("lr0"));
    QVERIFY(lr0);
    lr0->setValue(5.0);
    QCOMPARE(tab.args().lr0, 1.0);
    QVERIFY(!tab.setValue("epochs", "0"));           // epochs >= 1
    QVERIFY(!tab.setValue("optimizer", "Adagrad"));  // choices: Ultralytics' optimizers and auto
    QVERIFY(tab.setValue("optimizer", "AdamW"));
    QCOMPARE(tab.args().optimizer, std::string("AdamW"));
  }

  void batchTakesUltralyticsThreeForms() {
    // batch=16, -1 (AutoBatch) or 0.70 (AutoBatch at 70% of the GPU's memory; the engine's rule,
    // test_train_args): the editor is a number field that steps sizes by one and shows what the engine keeps.
    HyperparamsTab tab;
    auto* batch = qobject_cast<QDoubleSpinBox*>(tab.editor("batch"));
    QVERIFY(batch);
    QCOMPARE(batch->value(), 16.0);
    QCOMPARE(batch->singleStep(), 1.0);
    QVERIFY(tab.setValue("batch", "0.7"));
    QCOMPARE(tab.args().batch, -1);
    QCOMPARE(tab.args().batch_fraction, 0.7);
    QCOMPARE(batch->value(), 0.7);
    QCOMPARE(batch->text(), QString("0.7"));
    QVERIFY(tab.modified().contains("batch"));
    QVERIFY(!tab.setValue("batch", "2.5"));  // neither a size nor a fraction: refused, nothing changes
    QCOMPARE(tab.args().batch_fraction, 0.7);
    batch->setValue(24);  // as a user types it
    QCOMPARE(tab.args().batch, 24);
    QCOMPARE(tab.args().batch_fraction, 0.0);
    QCOMPARE(batch->text(), QString("24"));
  }

  void roundTripThroughYaml() {
    QTemporaryDir dir;
    const QString user = dir.path() + "/user.yaml";
    {
      // An Ultralytics-style file: task/mode/copy_paste are not training arguments here and are reported.
      QFile f(user);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(
          "task: detect\nmode: train\nepochs: 42\nlr0: 0.00123\nmosaic: 0.5\ncos_lr: true\ncopy_paste: "
          "0.0\n");
    }
    HyperparamsTab tab;
    QSignalSpy changed(&tab, &HyperparamsTab::argsChanged);
    QString error;
    QVERIFY2(tab.loadYaml(user, &error), qPrintable(error));
    QVERIFY(changed.count() >= 1);
    QCOMPARE(tab.args().epochs, 42);
    QCOMPARE(tab.args().lr0, 0.00123);  // more digits than a 4-decimal spin box would keep
    QCOMPARE(tab.args().cos_lr, true);
    // edit
    QVERIFY(tab.setValue("batch", "32"));
    QVERIFY(tab.setValue("fliplr", "0.25"));
    QStringList mod = tab.modified();
    mod.sort();
    QCOMPARE(mod, QStringList({"batch", "cos_lr", "epochs", "fliplr", "lr0", "mosaic"}));
    const QString saved = dir.path() + "/saved.yaml";
    QVERIFY2(tab.saveYaml(saved, &error), qPrintable(error));
    // load into a fresh tab: the same arguments, as text, for every key
    HyperparamsTab again;
    QVERIFY2(again.loadYaml(saved, &error), qPrintable(error));
    const ywb::TrainArgs a = tab.args(), b = again.args();
    for (const ywb::ArgSpec& s : ywb::trainArgSpecs()) QCOMPARE(b.get(s.name), a.get(s.name));
    QCOMPARE(b.batch, 32);
    QCOMPARE(b.fliplr, 0.25);
    again.resetAll();
    QVERIFY(again.modified().isEmpty());
  }

  void bothTabsViewOneModel() {
    // The Hyperparameters and Augmentation tabs are views of one TrainArgsModel: an edit in either shows in
    // the other and in the model, with no copy to keep in step.
    ywb::gui::TrainArgsModel model;
    HyperparamsTab hyper(&model);
    ywb::gui::AugmentationTab aug(&model);
    auto* aug_fliplr = aug.findChild<QDoubleSpinBox*>("aug_fliplr");
    QVERIFY(aug_fliplr);
    aug_fliplr->setValue(0.25);  // as a user types it in the Augmentation tab
    QCOMPARE(model.args().fliplr, 0.25);
    QCOMPARE(hyper.args().fliplr, 0.25);
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(hyper.editor("fliplr"))->value(), 0.25);
    QVERIFY(hyper.modified().contains("fliplr"));
    QVERIFY(hyper.setValue("scale", "0.75"));  // and the other way round
    QCOMPARE(aug.params().scale, 0.75);
    QCOMPARE(aug.findChild<QDoubleSpinBox*>("aug_scale")->value(), 0.75);
    QVERIFY(hyper.setValue("imgsz", "320"));
    QCOMPARE(model.args().imgsz, 320);
    // A value outside the table's range is refused by the model (the spin box clamps typed values first).
    QVERIFY(!model.set("scale", "2"));
    QCOMPARE(aug.params().scale, 0.75);
    hyper.resetAll();
    QCOMPARE(aug.params().fliplr, 0.5);  // Ultralytics' default, back in both views
  }

  void augmentationPreviewFollowsRectAndBgr() {
    // The Augmentation tab previews what training builds: rect=true set in the Hyperparameters tab turns
    // the grid into single-image samples at their rectangular shapes on the dark surround (engine:
    // test_rect_train previewShowsEachSampleAtItsShape), and says so; bgr has its editor, and bgr=1 shows
    // the same samples with red and blue exchanged.
    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {12, 4, 160, 11});
    ywb::gui::TrainArgsModel model;
    HyperparamsTab hyper(&model);
    ywb::gui::AugmentationTab aug(&model);
    aug.resize(900, 700);
    QVERIFY(hyper.setValue("imgsz", "320"));
    QVERIFY(hyper.setValue("data", QString::fromStdString(data)));
    aug.show();
    QTRY_VERIFY_WITH_TIMEOUT(aug.rendersDone() >= 1, 30000);
    auto* status = aug.findChild<QLabel*>("augStatus");
    QVERIFY(status && !status->text().contains("rect=true"));
    const auto dark = [](const QImage& img) {
      int n = 0;
      for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4) n += img.pixelColor(x, y) == QColor(26, 29, 35);
      return n;
    };
    QCOMPARE(dark(aug.lastImage()), 0);  // square samples fill their tiles
    int done = aug.rendersDone();
    QVERIFY(hyper.setValue("rect", "true"));
    QTRY_VERIFY_WITH_TIMEOUT(aug.rendersDone() > done && !status->text().startsWith("Rendering"), 30000);
    QVERIFY2(status->text().contains("rect=true: one image per sample"), qPrintable(status->text()));
    QVERIFY(dark(aug.lastImage()) > 0);
    aug.grab().save(shotsDir() + "/augmentation_rect.png");
    const QImage swapped_before = aug.lastImage();
    auto* bgr = aug.findChild<QDoubleSpinBox*>("aug_bgr");
    QVERIFY(bgr);
    done = aug.rendersDone();
    bgr->setValue(1.0);
    QCOMPARE(model.args().bgr, 1.0);
    QTRY_VERIFY_WITH_TIMEOUT(aug.rendersDone() > done && !status->text().startsWith("Rendering"), 30000);
    // Box outlines and labels are drawn after the swap in their own colours: compare the surround-free
    // pixels' channel sums, which the swap keeps, and require red and blue to differ somewhere.
    const QImage after = aug.lastImage();
    QCOMPARE(after.size(), swapped_before.size());
    int exchanged = 0, differs = 0;
    for (int y = 0; y < after.height(); y += 3) {
      for (int x = 0; x < after.width(); x += 3) {
        const QColor a = swapped_before.pixelColor(x, y), b = after.pixelColor(x, y);
        differs += a != b;
        exchanged += a != b && a.red() == b.blue() && a.blue() == b.red() && a.green() == b.green();
      }
    }
    QVERIFY2(differs > 0 && exchanged > differs * 9 / 10,
             qPrintable(QString("%1 of %2 changed pixels exchanged").arg(exchanged).arg(differs)));
  }

  void fileArgumentsHaveAFileChooser() {
    // data, model and pretrained name files: each has a chooser beside its editor; picking Ultralytics' own
    // .pt for model (fine-tune) or pretrained (transfer) puts its path into the training arguments. The
    // chooser offers the engine's weights suffixes (ywb::weightsFileSuffixes: .safetensors, .pt, .pth).
    const QString pt = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
    HyperparamsTab tab;
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    for (const char* name : {"pretrained", "model"}) {
      auto* browse = tab.findChild<QToolButton*>(QString("browse_") + name);
      QVERIFY2(browse, name);
      QStringList filters;
      ywb::test::answerFileDialog(pt, &filters);
      browse->click();
      QVERIFY2(filters.join(" ").contains("*.pt"), qPrintable(filters.join(" | ")));
      QVERIFY2(filters.join(" ").contains("*.safetensors"), qPrintable(filters.join(" | ")));
      QCOMPARE(QFileInfo(tab.value(name)).canonicalFilePath(), QFileInfo(pt).canonicalFilePath());
    }
    QCOMPARE(QFileInfo(QString::fromStdString(tab.args().pretrained)).canonicalFilePath(),
             QFileInfo(pt).canonicalFilePath());
    QCOMPARE(QFileInfo(QString::fromStdString(tab.args().model)).canonicalFilePath(),
             QFileInfo(pt).canonicalFilePath());
    QVERIFY(tab.findChild<QToolButton*>("browse_data"));
    QVERIFY(!tab.findChild<QToolButton*>("browse_lr0"));  // numbers have none
  }

  void brokenYamlIsReportedNotFatal() {
    QTemporaryDir dir;
    const QString bad = dir.path() + "/bad.yaml";
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("epochs: [unclosed\n");
    f.close();
    HyperparamsTab tab;
    QString error;
    QVERIFY(!tab.loadYaml(bad, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(tab.args().epochs, 100);  // unchanged
  }
};

QTEST_MAIN(TestHyperparamsTab)
#include "test_hyperparams_tab.moc"
