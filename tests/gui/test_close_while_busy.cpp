// Closing the main window while its workers are busy (issue 33's reliability fix): the Dataset tab scanning
// a dataset and writing a data.yaml for a folder, the Augmentation tab rendering, Predictions validating,
// Feature maps loading a model, the quick start generating its dataset and Export exporting, all at once.
// Each owner cancels and joins its workers when it goes away (gui/worker_threads.h): once the window is
// destroyed none runs, and the program exits cleanly (status 0, no "QThread: Destroyed while thread is still
// running", no crash). The exit is checked on a child process: this program again, running closeWhileBusy
// alone.
#include <QDir>
#include <QLineEdit>
#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "augmentation_tab.h"
#include "dataset_tab.h"
#include "export_tab.h"
#include "feature_maps_tab.h"
#include "main_window.h"
#include "predictions_tab.h"
#include "support/shapes_copy.h"
#include "worker_threads.h"

namespace {

const std::string kUltra = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics";

// A writable copy of the shared shapes dataset (256 train and 64 val images; scans write a label cache).
QString copyShapes(const QString& dir, const QString& name) {
  return QString::fromStdString(copyShapesDataset(dir.toStdString(), name.toStdString()));
}

}  // namespace

class TestCloseWhileBusy : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");  // keep test settings away from the user's
    QCoreApplication::setApplicationName("test_close_while_busy");
  }

  // Every worker started, the window closed and destroyed at once: no worker is left running.
  void closeWhileBusy() {
    QTemporaryDir tmp;
    const QString shapes = copyShapes(tmp.path(), "shapes"), yaml = shapes + "/data.yaml";
    const QString bare = copyShapes(tmp.path(), "bare");
    QVERIFY(QFile::remove(bare + "/data.yaml"));
    const QString weights = QString::fromStdString(kUltra) + "/yolov8n-shapes.pt";

    auto* w = new ywb::gui::MainWindow;
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QCOMPARE(ywb::gui::WorkerThreads::running(), 0);
    w->dataset()->openDataset(yaml);
    w->dataset()->createFromFolder(bare);
    w->tabs()->setCurrentWidget(w->augmentation());  // it renders while shown
    w->augmentation()->setDataset(yaml);
    w->predictions()->setWeights(weights);
    w->predictions()->setDataset(yaml);
    w->predictions()->setSplit("train");  // 256 images: seconds of validation, cancelled at the close
    w->predictions()->validate();
    w->featureMaps()->setWeights(weights);
    w->startQuickStart(tmp.path() + "/quick");
    const QString exported = tmp.path() + "/export.pt";  // a copy: the export writes beside its weights
    QVERIFY(QFile::copy(weights, exported));
    w->exporter()->setWeights(exported);
    w->exporter()->startExport();
    QVERIFY(w->exporter()->busy());
    // No event was processed since they started: each is running or has just returned.
    const int busy = ywb::gui::WorkerThreads::running();
    qInfo("busy workers at close: %d of 7", busy);
    QVERIFY2(busy >= 3, qPrintable(QString::number(busy)));
    QElapsedTimer clock;
    clock.start();
    QVERIFY(w->close());
    delete w;
    qInfo("window destroyed in %lld ms", static_cast<long long>(clock.elapsed()));
    QCOMPARE(ywb::gui::WorkerThreads::running(), 0);
  }

  // A tab destroyed while one of its fields has the focus and an unfinished edit: ~QWidget closes the window
  // after the tab's own members are gone, and the field's focus-out (editingFinished) used to reach the tab's
  // slot then (valgrind: FeatureMapsTab::loadLayersAsync reading freed strings; "corrupted double-linked
  // list" in CI: a model load started on the destroyed tab's workers). The field's signal is counted, so the
  // test shows the focus-out did happen during the destruction; nothing of the tab may run: no worker starts.
  void destroyingATabWhoseFieldHasTheFocus() {
    auto* fm = new ywb::gui::FeatureMapsTab;
    fm->show();
    QVERIFY(QTest::qWaitForWindowExposed(fm));
    QTRY_COMPARE_WITH_TIMEOUT(ywb::gui::WorkerThreads::running(), 0, 60000);  // the default model's load
    auto* field = fm->findChild<QLineEdit*>("fmWeights");
    QVERIFY(field);
    fm->activateWindow();
    field->setFocus();
    QTRY_VERIFY(field->hasFocus());
    field->clear();
    QTest::keyClicks(field, QString::fromStdString(kUltra) + "/yolov8n-shapes.pt");  // typed, not confirmed
    int finished = 0;
    connect(field, &QLineEdit::editingFinished, this, [&finished] { ++finished; });
    delete fm;
    QCOMPARE(finished, 1);  // the focus-out came during the destruction
    QCOMPARE(ywb::gui::WorkerThreads::running(), 0);
  }

  // The same in a child process, which then exits: status 0, no thread destroyed while running, no crash.
  void programExitsCleanly() {
    QProcess child;
    child.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), {"closeWhileBusy"});
    QVERIFY(child.waitForFinished(240000));
    const QString out = QString::fromLocal8Bit(child.readAll());
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, qPrintable(out));
    QVERIFY2(out.contains("PASS   : TestCloseWhileBusy::closeWhileBusy()"), qPrintable(out));
    QVERIFY2(!out.contains("QThread:"), qPrintable(out));
  }
};

QTEST_MAIN(TestCloseWhileBusy)
#include "test_close_while_busy.moc"
