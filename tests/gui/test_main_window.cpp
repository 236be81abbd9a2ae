// The real main window under the offscreen platform: tabs, docks, a live system chart, a screenshot.
#include <qcustomplot.h>
#include <QDir>
#include <QTabWidget>
#include <QTextBrowser>
#include <QtTest>

#include "main_window.h"
#include "system_panel.h"

class TestMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");  // keep test settings away from the user's
    QCoreApplication::setApplicationName("test_main_window");
  }

  void hasTheProductTabs() {
    ywb::gui::MainWindow w;
    const QStringList expected = {"Dataset",      "Hyperparameters", "Augmentation", "Training",
                                  "Feature maps", "Predictions",     "Export",       "Runs"};
    QCOMPARE(w.tabs()->count(), expected.size());
    for (int i = 0; i < expected.size(); ++i) QCOMPARE(w.tabs()->tabText(i), expected[i]);
  }

  void chartIsLiveAndDoctorReports() {
    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The sampler ticks once per second: within 5 s the chart must hold at least 3 CPU points.
    QTRY_VERIFY_WITH_TIMEOUT(w.systemPanel()->chart()->graph(0)->dataCount() >= 3, 5000);
    auto* summary = w.findChild<QTextBrowser*>("doctorSummary");
    QVERIFY(summary);
    QTRY_VERIFY_WITH_TIMEOUT(summary->toPlainText().contains("LibTorch"), 30000);
    const QString shots = QString(YW_BINARY_DIR) + "/screenshots";
    QDir().mkpath(shots);
    const QString file = shots + "/main_window.png";
    QVERIFY(w.grab().save(file));
    QVERIFY(QFileInfo(file).size() > 10000);
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
