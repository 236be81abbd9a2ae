// YOLO26 in the GUI (issue 32, part 7), on real files: the model field offers every YOLO26 scale (the
// engine's list); the Predictions tab validates Ultralytics 8.4's own yolo26n-shapes.pt on both paths
// (NMS-free from the one-to-one head, Ultralytics' number; the one-to-many head with NMS, a different but
// sane number) and says which path it took; Feature maps opens the same checkpoint, lists its layers and
// shows its head's best-class-score maps for both branches (the engine's numbers; and a YOLOv8's single
// head); and a tiny YOLO26 run started from the Training tab shows its one-to-one losses ("dfl / L1": no DFL
// with reg_max 1) and the o2m weight moving 0.80 -> 0.10, live and read back from its results.csv.
// Screenshots (looked at, not compared) go to build/<preset>/screenshots/yolo26_*.png.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "feature_map_images.h"
#include "feature_maps_tab.h"
#include "hyperparams_tab.h"
#include "main_window.h"
#include "metric_chart.h"
#include "predictions_tab.h"
#include "run_results.h"
#include "support/screenshots.h"
#include "support/tiny_run.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/feature_maps.h"
#include "ywb/model_info.h"
#include "ywb/model_loading.h"
#include "ywb/results_csv.h"

namespace {

const QString kUltra84 = QString(YW_SHARED_DIR) + "/fixtures/ultralytics84";
const QString kShapes = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes";

// The engine's head maps of `weights` on `image`, decoded as the Feature maps tab decodes it (QImage,
// RGB888).
std::vector<ywb::FeatureMap> engineHeadMaps(const QString& weights, const QString& image, ywb::HeadBranch b) {
  ywb::ModelHandle h = ywb::loadModelHandle(weights.toStdString());
  const QImage rgb = QImage(image).convertToFormat(QImage::Format_RGB888);
  const ywb::RgbView view{rgb.width(), rgb.height(), rgb.constBits(), rgb.bytesPerLine()};
  return ywb::extractHeadScoreMaps(h, view, b, 128);
}

// The per-level maxima the tab's table shows (column Max), and what the engine's maps give, as it prints
// them.
QStringList tableMaxima(const QTableWidget* t) {
  QStringList out;
  for (int r = 0; r < t->rowCount(); ++r) out << t->item(r, 0)->text() + " " + t->item(r, 4)->text();
  return out;
}
QStringList engineMaxima(const std::vector<ywb::FeatureMap>& maps) {
  QStringList out;
  for (const auto& m : maps)
    out << QString("P%1 %2")
               .arg(m.stride == 8    ? 3
                    : m.stride == 16 ? 4
                                     : 5)
               .arg(QString::number(*std::max_element(m.data.begin(), m.data.end()), 'g', 4));
  return out;
}

// Ultralytics' own mAP50-95 of yolo26n-shapes.pt (pycocotools on its detections; expected.json's stats[0]).
double expectedMap() {
  QFile f(kUltra84 + "/val-yolo26n/expected.json");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  return QJsonDocument::fromJson(f.readAll()).object()["stats"].toArray()[0].toDouble(-1);
}

}  // namespace

class TestYolo26Gui : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_yolo26_gui");
  }

  void modelFieldOffersEveryYolo26Scale() {
    // The combo box lists the engine's built-in models (resources/models/*.yaml through builtInModelNames):
    // yolo26.yaml's five scales are there, in the engine's order, with no list of the GUI's own.
    ywb::gui::HyperparamsTab tab;
    auto* combo = qobject_cast<QComboBox*>(tab.editor("model"));
    QVERIFY(combo);
    QStringList items;
    for (int i = 0; i < combo->count(); ++i) items << combo->itemText(i);
    QStringList engine26;
    for (const auto& n : ywb::builtInModelNames())
      if (QString::fromStdString(n).startsWith("yolo26")) engine26 << QString::fromStdString(n);
    QCOMPARE(engine26,
             QStringList({"yolo26n.yaml", "yolo26s.yaml", "yolo26m.yaml", "yolo26l.yaml", "yolo26x.yaml"}));
    for (const QString& name : engine26) QVERIFY2(items.contains(name), qPrintable(name));
    const int at = combo->findText("yolo26n.yaml");
    combo->setCurrentIndex(at);
    QCOMPARE(tab.args().model, std::string("yolo26n.yaml"));
    // ... and the official COCO weights by name (yolo26n.pt ..., downloaded on first use).
    QVERIFY(items.contains("yolo26n.pt"));
  }

  void predictionsAndFeatureMapsOnYolo26Weights() {
    const double want = expectedMap();
    QVERIFY2(want > 0, "val-yolo26n/expected.json unreadable");
    QTemporaryDir tmp;  // a copy: validation may write a label cache beside the labels
    const std::string shapes = tmp.path().toStdString() + "/shapes";
    std::filesystem::copy(kShapes.toStdString(), shapes, std::filesystem::copy_options::recursive);
    const QString pt = kUltra84 + "/yolo26n-shapes.pt";
    ywb::gui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* pred = w.predictions();
    w.tabs()->setCurrentWidget(pred);
    auto* e2e = pred->findChild<QCheckBox*>("predEnd2End");
    QVERIFY(e2e);
    QVERIFY(e2e->isChecked());  // ValOptions' default: an end-to-end model is validated NMS-free
    // The box follows Hyperparameters' end2end (one setting for the run's validation and this tab's).
    QVERIFY(w.hyperparams()->setValue("end2end", "false"));
    QVERIFY(!e2e->isChecked());
    QVERIFY(w.hyperparams()->setValue("end2end", "true"));
    QVERIFY(e2e->isChecked());
    pred->setWeights(pt);
    pred->setDataset(QString::fromStdString(shapes) + "/data.yaml");
    auto* summary = pred->findChild<QLabel*>("predSummary");
    QSignalSpy validated(pred, &ywb::gui::PredictionsTab::validated);

    // NMS-free (end2end=true): Ultralytics' own number (expected.json: 0.1193; `ywb val` reads 0.1194).
    pred->validate();
    QTRY_VERIFY_WITH_TIMEOUT(validated.count() == 1, 120000);
    QVERIFY2(validated.last().first().toBool(), qPrintable(summary->text()));
    const double map_e2e = pred->report().metrics.map;
    QVERIFY2(std::abs(map_e2e - want) <= 0.005, qPrintable(QString("%1 vs %2").arg(map_e2e).arg(want)));
    QVERIFY(pred->report().end2end_model);
    QVERIFY(pred->report().nms_free);
    QVERIFY2(summary->text().contains("NMS-free"), qPrintable(summary->text()));
    // The post-processing time is named for what ran (the top-k selection, not NMS), as `ywb val` names it.
    QVERIFY2(
        summary->text().contains("ms top-k (no NMS) per image") && !summary->text().contains("ms NMS per"),
        qPrintable(summary->text()));
    QVERIFY(pred->report().detections.size() == 64);  // every val image, for the viewer
    QTest::qWait(100);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_predictions_nms_free.png"));

    // Unticking the box validates again through the one-to-many head with NMS: another number (a different
    // head and post-processing), still a trained detector's.
    e2e->setChecked(false);  // as a user clicks it: toggling starts the validation
    QTRY_VERIFY_WITH_TIMEOUT(validated.count() == 2, 120000);
    QVERIFY2(validated.last().first().toBool(), qPrintable(summary->text()));
    const double map_nms = pred->report().metrics.map;
    QVERIFY(pred->report().end2end_model);
    QVERIFY(!pred->report().nms_free);
    QVERIFY2(summary->text().contains("one-to-many head with NMS"), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains("ms NMS per image"), qPrintable(summary->text()));
    QVERIFY2(std::abs(map_nms - map_e2e) > 1e-4, qPrintable(QString("%1 vs %2").arg(map_nms).arg(map_e2e)));
    QVERIFY2(map_nms > 0.05, qPrintable(QString::number(map_nms)));
    qInfo("yolo26n-shapes.pt mAP50-95: NMS-free %.4f (Ultralytics %.4f), one-to-many + NMS %.4f", map_e2e,
          want, map_nms);
    QTest::qWait(100);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_predictions_nms.png"));

    // Feature maps: the checkpoint's layers (yolo26.yaml: 0..22, then the Detect head 23's two entries, one
    // per branch), at the size it was trained at (128); layer 22 is the C3k2 with attention.
    auto* fm = w.featureMaps();
    QSignalSpy shown(fm, &ywb::gui::FeatureMapsTab::shown);
    fm->setWeights(pt);
    const QString image = QString::fromStdString(shapes) + "/images/val/" +
                          QDir(QString::fromStdString(shapes) + "/images/val").entryList(QDir::Files).first();
    fm->setImage(image);
    fm->setLayer(22);
    w.tabs()->setCurrentWidget(fm);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && fm->layers()->count() == 25, 60000);
    QVERIFY(shown.last().first().toBool());
    QCOMPARE(fm->findChild<QSpinBox*>("fmImgsz")->value(), 128);
    QVERIFY2(fm->layers()->itemText(22).startsWith("22  C3k2"), qPrintable(fm->layers()->itemText(22)));
    QVERIFY2(fm->layers()->itemText(9).startsWith("9  SPPF"), qPrintable(fm->layers()->itemText(9)));
    QTRY_VERIFY_WITH_TIMEOUT(fm->findChild<QLabel*>("fmStatus")->text().startsWith("Layer 22 (C3k2)"), 30000);
    QVERIFY(!fm->mosaic().isNull());
    QTest::qWait(100);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_feature_maps.png"));
  }

  void featureMapsShowTheHeadOfBothBranches() {
    // The Detect head's entries for Ultralytics 8.4's yolo26n-shapes.pt (layer 23, after layers 0..22): one
    // per branch, one-to-one first, each the P3, P4, P5 best-class-score maps, at the trained size 128: 128 /
    // 8, 16, 32 = 16, 8, 4 cells a side. The table's per-level maxima are the engine's for the same pixels;
    // the branches have different weights, so their maps differ. Then an 8.4 YOLOv8n: one head, one entry.
    const QString y26 = kUltra84 + "/yolo26n-shapes.pt", v8 = kUltra84 + "/yolov8n-shapes.pt";
    const QString image = kShapes + "/images/val/val_00000.jpg";
    ywb::gui::FeatureMapsTab fm;
    fm.resize(1200, 700);
    fm.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fm));
    auto* status = fm.findChild<QLabel*>("fmStatus");
    fm.setWeights(y26);
    fm.setImage(image);
    fm.setHeadMaps(ywb::HeadBranch::OneToOne);
    QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith("Layer 23 (Detect, one-to-one branch)"), 60000);
    QVERIFY2(status->text().contains("P3 16x16, P4 8x8, P5 4x4"), qPrintable(status->text()));
    QCOMPARE(fm.layers()->count(), 25);
    QCOMPARE(fm.layers()->currentIndex(), 23);
    QCOMPARE(fm.layers()->itemText(23),
             QString("23  Detect  one-to-one: best class score  1x16x16, 1x8x8, 1x4x4"));
    QCOMPARE(fm.layers()->itemText(24),
             QString("23  Detect  one-to-many: best class score  1x16x16, 1x8x8, 1x4x4"));
    const QStringList o2o = tableMaxima(fm.stats());
    const std::vector<ywb::FeatureMap> o2o_maps = engineHeadMaps(y26, image, ywb::HeadBranch::OneToOne);
    QCOMPARE(o2o, engineMaxima(o2o_maps));
    // The picture (drawn on the tab's worker) shows those maps: the centre of every P3 cell has
    // heatColour(score / highest score of any level), within the 1,024-step ramp's one grey level. Layout
    // from feature_map_images.h: tiles 12 px apart under a 22 px caption, P3's 16 cells enlarged 10x to 160.
    {
      float top = 0;
      for (const auto& m : o2o_maps)
        for (float v : m.data) top = std::max(top, v);
      const ywb::FeatureMap& p3 = o2o_maps.front();
      QCOMPARE(p3.width, 16);
      const QImage pic = fm.mosaic();
      int worst = 0;
      for (int y = 0; y < p3.height; ++y)
        for (int x = 0; x < p3.width; ++x) {
          const QRgb got = pic.pixel(12 + x * 10 + 5, 22 + y * 10 + 5);
          const QRgb want = ywb::gui::heatColour(p3.data[size_t(y * p3.width + x)] / top);
          worst = std::max({worst, std::abs(qRed(got) - qRed(want)), std::abs(qGreen(got) - qGreen(want)),
                            std::abs(qBlue(got) - qBlue(want))});
        }
      QVERIFY2(worst <= 1, qPrintable(QString("P3 tile off by %1 levels").arg(worst)));
    }
    QTest::qWait(100);
    QVERIFY(fm.grab().save(shotsDir() + "/yolo26_feature_maps_head_one2one.png"));

    fm.setHeadMaps(ywb::HeadBranch::OneToMany);
    QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith("Layer 23 (Detect, one-to-many branch)"), 60000);
    QCOMPARE(fm.layers()->currentIndex(), 24);
    const QStringList o2m = tableMaxima(fm.stats());
    QCOMPARE(o2m, engineMaxima(engineHeadMaps(y26, image, ywb::HeadBranch::OneToMany)));
    QVERIFY2(o2m != o2o, qPrintable(o2m.join(", ")));
    QTest::qWait(100);
    QVERIFY(fm.grab().save(shotsDir() + "/yolo26_feature_maps_head_one2many.png"));

    // A YOLOv8n: 22 layers' outputs and its one head entry, which the one-to-one choice falls back to.
    fm.setHeadMaps(ywb::HeadBranch::OneToOne);
    QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith("Layer 23 (Detect, one-to-one branch)"), 60000);
    fm.setWeights(v8);
    fm.compute();
    QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith("Layer 22 (Detect): "), 60000);
    QCOMPARE(fm.layers()->count(), 23);
    QCOMPARE(fm.layers()->itemText(22), QString("22  Detect  best class score  1x16x16, 1x8x8, 1x4x4"));
    QCOMPARE(tableMaxima(fm.stats()), engineMaxima(engineHeadMaps(v8, image, ywb::HeadBranch::OneToMany)));
  }

  void yolo26TrainsFromTheGuiWithItsO2mWeightShown() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data =
        QString::fromStdString(ywb::test::tinyDataset(tmp.path().toStdString(), {16, 8, 64}));
    ywb::gui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* hyper = w.hyperparams();
    auto* combo = qobject_cast<QComboBox*>(hyper->editor("model"));
    QVERIFY(combo);
    combo->setCurrentIndex(combo->findText("yolo26n.yaml"));
    QCOMPARE(hyper->args().model, std::string("yolo26n.yaml"));
    const QList<QPair<QString, QString>> settings = {
        {"data", data},     {"epochs", "2"},  {"batch", "8"},        {"workers", "2"},
        {"amp", "false"},   {"imgsz", "64"},  {"device", "cpu"},     {"project", tmp.path() + "/runs"},
        {"name", "yolo26"}, {"threads", "2"}, {"warmup_epochs", "0"}};
    for (const auto& kv : settings) QVERIFY2(hyper->setValue(kv.first, kv.second), qPrintable(kv.first));
    w.tabs()->setCurrentWidget(hyper);
    QTest::qWait(50);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_hyperparameters.png"));
    if (auto* scroll = hyper->findChild<QScrollArea*>())
      scroll->ensureWidgetVisible(hyper->editor("end2end"));
    QTest::qWait(50);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_hyperparameters_end2end.png"));

    auto* tab = w.training();
    w.tabs()->setCurrentWidget(tab);
    auto* ctl = tab->controller();
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);
    tab->startTraining();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 1);
    QTest::qWait(200);  // the last steps drained into the charts

    // The loss charts name what is logged: box, cls and the L1 term in DFL's slot (reg_max 1), of the
    // one-to-one branch; the o2m weight is a series of its own, 0.8 in epoch 1 and 0.1 in epoch 2 of 2
    // (0.8 -> 0.1 linearly over epochs 0..epochs-1), and the note says so.
    ywb::gui::MetricChart* loss = tab->chart("trainLoss");
    QCOMPARE(loss->graph(2)->name(), QString("dfl / L1"));
    QCOMPARE(tab->chart("valLoss")->graph(2)->name(), QString("dfl / L1"));
    QCOMPARE(loss->graph(3)->name(), QString("o2m weight"));
    QVERIFY(loss->legend->hasItemWithPlottable(loss->graph(3)));
    QVERIFY(loss->points(3) >= 2);
    QCOMPARE(loss->points(3), loss->points(0));  // one weight per logged step
    QCOMPARE(loss->graph(3)->data()->constBegin()->value, 0.8);
    QVERIFY(std::abs((loss->graph(3)->data()->constEnd() - 1)->value - 0.1) < 1e-12);
    QVERIFY2(loss->note().contains(QString::fromUtf8("o2m weight 0.80 → 0.10")), qPrintable(loss->note()));
    QVERIFY(loss->points(0) > 0 && loss->points(2) > 0);
    QVERIFY(tab->exportCharts(shotsDir() + "/yolo26_training_charts.png"));
    QVERIFY(loss->grab().save(shotsDir() + "/yolo26_train_loss.png"));
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_training.png"));

    // results.csv carries the weight (a last `o2m` column that readers of Ultralytics' columns ignore), so
    // the run opened again shows it the same way.
    const QString run_dir = tab->lastRunDir();
    const auto rows = ywb::readResults((run_dir + "/results.csv").toStdString());
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[0].o2m, 0.8);
    QVERIFY(std::abs(rows[1].o2m - 0.1) < 1e-12);
    ywb::gui::RunResults r;
    QVERIFY(r.load(run_dir));
    tab->showRuns({r});
    QCOMPARE(loss->points(3), 4);  // each epoch's weight from its start to its end
    QCOMPARE(loss->graph(3)->data()->at(1)->value, 0.8);
    QVERIFY(std::abs(loss->graph(3)->data()->at(2)->value - 0.1) < 1e-12);
    QCOMPARE(loss->graph(2)->name(), QString("dfl / L1"));
    QVERIFY2(loss->note().contains(QString::fromUtf8("o2m weight 0.80 → 0.10")), qPrintable(loss->note()));
    QTest::qWait(100);
    QVERIFY(w.grab().save(shotsDir() + "/yolo26_training_reopened.png"));
    QVERIFY(loss->grab().save(shotsDir() + "/yolo26_train_loss_reopened.png"));
  }
};

QTEST_MAIN(TestYolo26Gui)
#include "test_yolo26_gui.moc"
