// YOLO11 in the GUI (issue 14): the Hyperparameters tab's model field offers every YOLO11 scale beside
// YOLOv8's; picking yolo11n there and pressing Start trains a YOLO11n through the real engine, and the Runs
// tab says which model the run used (read from the run's args.yaml).
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "hyperparams_tab.h"
#include "main_window.h"
#include "runs_tab.h"
#include "support/tiny_run.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/model_info.h"
#include "ywb/train_events.h"
#include "ywb/weights.h"

class TestYolo11Gui : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_yolo11_gui");
  }

  void modelFieldOffersEveryScaleOfBothFamilies() {
    ywb::gui::HyperparamsTab tab;
    auto* combo = qobject_cast<QComboBox*>(tab.editor("model"));
    QVERIFY(combo);
    QStringList items;
    for (int i = 0; i < combo->count(); ++i) items << combo->itemText(i);
    // The list: YOLOv8 and YOLO11, scales n s m l x each.
    for (const char* family : {"yolov8", "yolo11"})
      for (const char* scale : {"n", "s", "m", "l", "x"}) {
        const QString name = QString(family) + scale + ".yaml";
        QVERIFY2(items.contains(name), qPrintable(name + " missing from " + items.join(", ")));
      }
  }

  void yolo11nTrainsFromTheGuiAndTheRunSaysSo() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data =
        QString::fromStdString(ywb::test::tinyDataset(tmp.path().toStdString(), {16, 8, 96}));
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* hyper = w.hyperparams();
    // Chosen in the model field as a user does: the combo box's own item.
    auto* combo = qobject_cast<QComboBox*>(hyper->editor("model"));
    QVERIFY(combo);
    const int at = combo->findText("yolo11n.yaml");
    QVERIFY(at >= 0);
    combo->setCurrentIndex(at);
    QCOMPARE(hyper->args().model, std::string("yolo11n.yaml"));
    const QList<QPair<QString, QString>> settings = {
        {"data", data},     {"epochs", "1"},  {"batch", "8"},        {"workers", "2"},
        {"amp", "false"},   {"imgsz", "96"},  {"device", "cpu"},     {"project", tmp.path() + "/runs"},
        {"name", "yolo11"}, {"threads", "1"}, {"warmup_epochs", "0"}};
    for (const auto& kv : settings) QVERIFY2(hyper->setValue(kv.first, kv.second), qPrintable(kv.first));

    auto* tab = w.training();
    auto* ctl = tab->controller();
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);
    tab->startTraining();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().value<ywb::TrainSummary>().epochs_completed, 1);

    // The weights are a YOLO11n: its YAML (family and scale) travels in the checkpoint, and the model it
    // rebuilds has YOLO11n's parameter count for the dataset's 6 classes (`ywb model info nc=6`).
    const QString run_dir = tab->lastRunDir();
    const auto meta = ywb::inspectWeights((run_dir + "/weights/last.safetensors").toStdString()).metadata;
    QVERIFY2(meta.at("model_yaml").find("yolo11n.yaml") != std::string::npos, meta.at("model_yaml").c_str());
    QCOMPARE(ywb::modelInfo(meta.at("model_yaml"), 6).parameters,
             ywb::modelInfo("yolo11n.yaml", 6).parameters);

    // The Runs tab lists the run with its model.
    w.runs()->setRunsFolder(tmp.path() + "/runs");
    QCOMPARE(w.runs()->table()->rowCount(), 1);
    QCOMPARE(w.runs()->table()->horizontalHeaderItem(7)->text(), QString("Model"));
    QCOMPARE(w.runs()->table()->item(0, 7)->text(), QString("yolo11n.yaml"));
  }
};

QTEST_MAIN(TestYolo11Gui)
#include "test_yolo11_gui.moc"
