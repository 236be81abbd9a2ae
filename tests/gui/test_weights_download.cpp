// The GUI side of pretrained weights by name against a real loopback server (tests/support/weights_server.py)
// serving Ultralytics' yolov8n-shapes.pt as yolov8n.pt: the progress dialog fills and closes with the cached
// path, Cancel stops a download with nothing under the final name, and the Hyperparameters choosers list the
// official weights with their size and "downloaded" / "will download"; Feature maps' weights field fetches
// an official name through the same dialog, then shows its layers.
#include <QAbstractItemView>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "feature_maps_tab.h"
#include "hyperparams_tab.h"
#include "official_weights_items.h"
#include "support/screenshots.h"
#include "support/weights_server.h"
#include "weights_download_dialog.h"

using ywb::gui::WeightsDownloadDialog;

class TestWeightsDownload : public QObject {
  Q_OBJECT
  QTemporaryDir served_;
  std::unique_ptr<WeightsServer> server_;

  ywb::WeightsFetchOptions options(const char* mode, const QTemporaryDir& cache) {
    ywb::WeightsFetchOptions o;
    o.base_url = server_->base(mode);
    o.cache_dir = cache.path().toStdString();
    return o;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(
        QFile::copy(YW_SHARED_DIR "/fixtures/ultralytics/yolov8n-shapes.pt", served_.filePath("yolov8n.pt")));
    server_ = std::make_unique<WeightsServer>(served_.path());
    QVERIFY2(server_->port() > 0, "python3 tests/support/weights_server.py did not start");
  }

  void dialogShowsProgressAndFinishes() {
    // The slow mode sends 16 KiB every 50 ms (6.2 MB: ~19 s in all), so the bar is seen filling; the test
    // then lets it run to the end only on the fast mode below.
    QTemporaryDir cache;
    {
      WeightsDownloadDialog dlg("yolov8n.pt", options("slow", cache));
      QSignalSpy done(&dlg, &WeightsDownloadDialog::done);
      dlg.start();
      dlg.show();
      QTRY_VERIFY_WITH_TIMEOUT(dlg.value() > 0, 10000);  // kilobytes received, shown while downloading
      QCOMPARE(dlg.maximum(), int(QFileInfo(served_.filePath("yolov8n.pt")).size() / 1024));
      QTRY_VERIFY_WITH_TIMEOUT(dlg.value() > dlg.maximum() / 20, 10000);  // 5%: ~1 s at 320 KB/s
      dlg.grab().save(QDir::temp().filePath("ywb-weights-download-dialog.png"));
      // Cancel, as a user clicks it: the worker stops at its next progress callback.
      auto* cancel = dlg.findChild<QPushButton*>();
      QVERIFY(cancel);
      cancel->click();
      QTRY_VERIFY_WITH_TIMEOUT(dlg.finished(), 10000);
      QCOMPARE(done.count(), 1);
      QCOMPARE(done.first().first().toBool(), false);
      QVERIFY2(dlg.error().contains("cancelled"), qPrintable(dlg.error()));
      QVERIFY(dlg.path().isEmpty());
      QVERIFY(!QFile::exists(cache.filePath("yolov8n.pt")));  // nothing under the final name
    }
    {
      WeightsDownloadDialog dlg("yolov8n.pt", options("ok", cache));
      dlg.start();
      QTRY_VERIFY_WITH_TIMEOUT(dlg.finished(), 20000);
      QVERIFY2(dlg.error().isEmpty(), qPrintable(dlg.error()));
      QCOMPARE(dlg.path(), cache.filePath("yolov8n.pt"));
      // The kept .part of the cancelled attempt was resumed: the last request asked for the rest.
      QVERIFY2(server_->requests().last().startsWith("REQ /ok/yolov8n.pt bytes="),
               qPrintable(server_->requests().join("\n")));
    }
  }

  void choosersOfferTheOfficialWeights() {
    QTemporaryDir cache;
    qputenv("YWB_WEIGHTS_DIR", cache.path().toUtf8());
    QVERIFY(QFile::copy(served_.filePath("yolov8n.pt"), cache.filePath("yolov8n.pt")));  // already cached
    ywb::gui::HyperparamsTab tab;
    for (const char* name : {"model", "pretrained"}) {
      auto* c = qobject_cast<QComboBox*>(tab.editor(name));
      QVERIFY2(c, name);
      const int v8 = c->findText("yolov8n.pt"), v26 = c->findText("yolo26x.pt");
      QVERIFY2(v8 >= 0 && v26 >= 0, name);
      const int role = ywb::gui::OfficialWeightsDelegate::kNoteRole;
      // Sizes: yolov8n.pt's is the published file's (6,549,796 bytes); yolo26x's an estimate (55.7 M params).
      QCOMPARE(c->itemData(v8, role).toString(), QString("6.5 MB, downloaded"));
      QCOMPARE(c->itemData(v26, role).toString(), QString("about 117.0 MB, will download"));
      c->setCurrentIndex(v8);
      QCOMPARE(tab.value(name), QString("yolov8n.pt"));  // the argument is the bare name
    }
    // A look at the list as a user opens it (the note drawn after each official name).
    tab.show();
    auto* model = qobject_cast<QComboBox*>(tab.editor("model"));
    model->showPopup();
    QTest::qWait(200);
    model->view()->window()->grab().save(QDir::temp().filePath("ywb-weights-model-chooser.png"));
    model->hidePopup();
    qunsetenv("YWB_WEIGHTS_DIR");
  }

  void featureMapsFetchesOfficialWeights() {
    // Feature maps' weights field offers the official names too. Picking one that is not cached opens the
    // progress dialog; Cancel leaves nothing in the cache and no model; picked again (a server that answers
    // at once), it downloads, then its layers are listed at the size it was trained at (the fixture: 128).
    QTemporaryDir cache;
    qputenv("YWB_WEIGHTS_DIR", cache.path().toUtf8());
    qputenv("YWB_WEIGHTS_URL", QByteArray::fromStdString(server_->base("slow")));
    ywb::gui::FeatureMapsTab tab;
    tab.resize(900, 600);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    QTRY_VERIFY_WITH_TIMEOUT(tab.layers()->count() > 0, 60000);  // the untrained yolov8n.yaml at first
    auto* chooser = tab.findChild<QComboBox*>("fmWeightsChooser");
    QVERIFY(chooser);
    const int v8 = chooser->findText("yolov8n.pt"), v26 = chooser->findText("yolo26n.pt");
    QVERIFY(v8 >= 0 && v26 >= 0);
    const int role = ywb::gui::OfficialWeightsDelegate::kNoteRole;
    QCOMPARE(chooser->itemData(v8, role).toString(), QString("6.5 MB, will download"));
    chooser->showPopup();  // a look at the list as a user opens it
    QTest::qWait(200);
    chooser->view()->window()->grab().save(QString(YW_BINARY_DIR) +
                                           "/screenshots/feature_maps_weights_chooser.png");
    chooser->hidePopup();
    // Cancel, as a user clicks it, once the bar has moved.
    bool cancelled = false;
    std::function<void()> cancelWhenMoving = [&] {
      auto* dlg = tab.findChild<WeightsDownloadDialog*>();
      if (dlg && dlg->isVisible() && dlg->value() > 0) {
        dlg->findChild<QPushButton*>()->click();
        cancelled = true;
        return;
      }
      QTimer::singleShot(50, &tab, cancelWhenMoving);
    };
    QTimer::singleShot(50, &tab, cancelWhenMoving);
    chooser->setCurrentIndex(v8);
    Q_EMIT chooser->activated(v8);  // returns once the dialog has closed
    QVERIFY(cancelled);
    auto* status = tab.findChild<QLabel*>("fmStatus");
    QVERIFY2(status->text().contains("yolov8n.pt") && status->text().contains("cancelled"),
             qPrintable(status->text()));
    QVERIFY(!QFile::exists(cache.filePath("yolov8n.pt")));
    QCOMPARE(tab.findChild<QSpinBox*>("fmImgsz")->value(), 320);  // nothing loaded

    qputenv("YWB_WEIGHTS_URL", QByteArray::fromStdString(server_->base("ok")));
    const int before = int(server_->requests().size());
    Q_EMIT chooser->activated(v8);
    QVERIFY2(QFile::exists(cache.filePath("yolov8n.pt")), qPrintable(status->text()));
    QVERIFY(server_->requests().size() > before);
    QCOMPARE(chooser->itemData(v8, role).toString(), QString("6.5 MB, downloaded"));
    QCOMPARE(tab.findChild<QLineEdit*>("fmWeights")->text(), QString("yolov8n.pt"));  // the name, as picked
    QCOMPARE(status->text(), "Weights yolov8n.pt: " + cache.filePath("yolov8n.pt") + " (the weights cache)");
    QTRY_COMPARE_WITH_TIMEOUT(tab.findChild<QSpinBox*>("fmImgsz")->value(), 128, 60000);
    QVERIFY(tab.layers()->count() > 10);
    tab.grab().save(shotsDir() + "/feature_maps_official_weights.png");
    // Cached now: picked again, no request is made.
    const int after = int(server_->requests().size());
    tab.setWeights("yolov8n.pt");
    QTest::qWait(300);
    QCOMPARE(int(server_->requests().size()), after);
    qunsetenv("YWB_WEIGHTS_URL");
    qunsetenv("YWB_WEIGHTS_DIR");
  }
};

QTEST_MAIN(TestWeightsDownload)
#include "test_weights_download.moc"
