// The real main window under the offscreen platform: tabs, docks, a live system chart, a screenshot,
// remembered splitter positions, and a data.yaml created from a folder through the Dataset tab.
#include <qcustomplot.h>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTranslator>
#include <QTreeWidget>
#include <QXmlStreamReader>
#include <QtTest>

#include "dataset_tab.h"
#include "main_window.h"
#include "support/screenshots.h"
#include "support/tiny_run.h"
#include "system_panel.h"
#include "training_tab.h"
#include "ywb/synth.h"

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
    const QString shots = shotsDir();
    const QString file = shots + "/main_window.png";
    QVERIFY(w.grab().save(file));
    QVERIFY(QFileInfo(file).size() > 10000);
  }

  void systemPanelShowsEveryGpu() {
    // The fake NVML driver (tests/fakes/fake_nvml.c) reports two GPUs: GPU 0 at 87% load with 20 of 80 GiB
    // used (25%), GPU 1 at 3% with 1 of 8 GiB (12.5%). One load and one memory series per GPU follow CPU,
    // RAM.
    qputenv("YWB_NVML_LIB", YW_FAKE_NVML);
    ywb::gui::MainWindow w;
    qunsetenv("YWB_NVML_LIB");
    QCustomPlot* chart = w.systemPanel()->chart();
    QTRY_VERIFY_WITH_TIMEOUT(chart->graphCount() == 6 && chart->graph(5)->dataCount() >= 1, 5000);
    const QStringList names = {"CPU", "RAM", "GPU0 load", "GPU0 memory", "GPU1 load", "GPU1 memory"};
    const QList<double> expected = {87, 25, 3, 12.5};
    for (int i = 0; i < 6; ++i) QCOMPARE(chart->graph(i)->name(), names[i]);
    for (int i = 0; i < 4; ++i) QCOMPARE(chart->graph(2 + i)->data()->at(0)->value, expected[i]);
    // A run on device=1,0: rank 0 uses GPU 1 and rank 1 GPU 0 (the device list's order); the series say so.
    w.systemPanel()->setRunDevices("1,0", 1);
    QCOMPARE(chart->graph(2)->name(), QString("GPU0 load (rank 1)"));
    QCOMPARE(chart->graph(5)->name(), QString("GPU1 memory (rank 0)"));
    w.systemPanel()->setRunDevices("cpu", 2);  // CPU ranks use no GPU
    QCOMPARE(chart->graph(2)->name(), QString("GPU0 load"));
  }

  void chineseUi() {
    // The build compiles resources/translations/yolo-workbench_zh_CN.ts into this .qm (qt_add_translations).
    QTranslator zh;
    QVERIFY(zh.load(QString(YW_QM_DIR) + "/yolo-workbench_zh_CN.qm"));
    QVERIFY(QCoreApplication::installTranslator(&zh));
    {
      ywb::gui::MainWindow w;
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      const QStringList expected = {"数据集", "超参数", "数据增强", "训练",
                                    "特征图", "预测",   "导出",     "运行记录"};
      for (int i = 0; i < expected.size(); ++i) QCOMPARE(w.tabs()->tabText(i), expected[i]);
      QVERIFY(w.findChild<QPushButton*>("createDatasetButton")->text() == "从文件夹创建……");
      w.tabs()->setCurrentWidget(w.training());
      QTest::qWait(300);
      const QString shots = shotsDir();
      QVERIFY(w.grab().save(shots + "/main_window_zh_CN.png"));
    }
    QCoreApplication::removeTranslator(&zh);
  }

  void everyUiStringIsTranslated() {
    // lupdate over gui/ into a copy of the committed .ts: a tr() string without a translation (new, or
    // changed since the last lupdate) shows up as "unfinished". Fix: run lupdate (cmake --build ...
    // --target update_translations, or lupdate gui -ts resources/translations/...) and translate it.
    if (!QFileInfo(YW_LUPDATE).isExecutable()) QSKIP("lupdate not installed");
    QTemporaryDir tmp;
    const QString ts = tmp.path() + "/zh_CN.ts";
    QVERIFY(QFile::copy(QString(YW_SOURCE_DIR) + "/resources/translations/yolo-workbench_zh_CN.ts", ts));
    QFile::setPermissions(ts, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QProcess lupdate;
    lupdate.start(YW_LUPDATE,
                  {QString(YW_SOURCE_DIR) + "/gui", "-no-obsolete", "-locations", "none", "-ts", ts});
    QVERIFY(lupdate.waitForFinished(60000));
    QCOMPARE(lupdate.exitCode(), 0);
    QFile f(ts);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    QStringList untranslated;
    QString source;
    while (!xml.atEnd()) {
      xml.readNext();
      if (!xml.isStartElement()) continue;
      if (xml.name() == QLatin1String("source")) source = xml.readElementText();
      if (xml.name() == QLatin1String("translation") &&
          xml.attributes().value("type") == QLatin1String("unfinished"))
        untranslated << source;
    }
    QVERIFY(!xml.hasError());
    QVERIFY2(untranslated.isEmpty(), qPrintable("untranslated: " + untranslated.join(" | ")));
  }

  void splitterPositionsAreRemembered() {
    QSettings().clear();
    QList<int> saved;
    {
      ywb::gui::MainWindow w;
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.tabs()->setCurrentWidget(w.training());  // a hidden tab's splitter has no size yet
      QCoreApplication::processEvents();
      auto* split = w.findChild<QSplitter*>("trainingSplitter");
      QVERIFY(split);
      QCOMPARE(split->count(), 2);  // charts over the log
      const int total = split->sizes()[0] + split->sizes()[1];
      QVERIFY(total > 200);
      // Move the handle away from the default 5:1 stretch: the log gets a quarter of the height (the charts
      // keep their minimum height).
      split->setSizes({total - total / 4, total / 4});
      saved = split->sizes();
      QVERIFY2(std::abs(saved[1] - total / 4) <= 1,
               qPrintable(QString("%1 / %2 of %3").arg(saved[0]).arg(saved[1]).arg(total)));
      QVERIFY(w.close());  // closing stores the layout, like the user quitting
    }
    ywb::gui::MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    again.tabs()->setCurrentWidget(again.training());
    QCoreApplication::processEvents();
    auto* split = again.findChild<QSplitter*>("trainingSplitter");
    QVERIFY(split);
    QCOMPARE(split->sizes(), saved);
    QSettings().clear();
    ywb::gui::MainWindow fresh;  // without settings: the default stretch (charts 5 : log 1) again
    fresh.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fresh));
    fresh.tabs()->setCurrentWidget(fresh.training());
    QCoreApplication::processEvents();
    const QList<int> d = fresh.findChild<QSplitter*>("trainingSplitter")->sizes();
    QVERIFY2(d[0] > 3 * d[1], qPrintable(QString("%1 / %2").arg(d[0]).arg(d[1])));
  }

  void datasetCreatedFromAFolder() {
    // A generated dataset whose data.yaml is removed: the Dataset tab writes a new one through the engine
    // (ywb::initDatasetYaml, off the GUI thread) and opens and scans it.
    QTemporaryDir tmp;
    ywb::test::tinyDataset(tmp.path().toStdString(), {6, 2, 64});
    const QString folder = tmp.path() + "/shapes";
    QVERIFY(QFile::remove(folder + "/data.yaml"));
    ywb::gui::MainWindow w;
    auto* ds = w.dataset();
    QSignalSpy created(ds, &ywb::gui::DatasetTab::datasetCreated);
    QSignalSpy scanned(ds, &ywb::gui::DatasetTab::datasetScanned);
    ds->createFromFolder(folder);
    QTRY_VERIFY_WITH_TIMEOUT(scanned.count() == 1, 30000);
    QCOMPARE(created.count(), 1);
    QVERIFY(created.first().at(0).toBool());
    QCOMPARE(created.first().at(1).toString(), folder + "/data.yaml");
    QVERIFY(scanned.first().first().toBool());
    QCOMPARE(ds->dataYaml(), folder + "/data.yaml");
    QCOMPARE(ds->images()->topLevelItemCount(), 6);  // the train split

    // A second time: the data.yaml exists now and is not replaced without asking.
    ds->createFromFolder(folder);
    QTRY_VERIFY_WITH_TIMEOUT(created.count() == 2, 30000);
    QVERIFY(!created.last().at(0).toBool());
    QVERIFY(created.last().at(1).toString().contains("already exists"));
    // An empty folder: the engine's message reaches the user.
    QVERIFY(QDir(tmp.path()).mkdir("empty"));
    ds->createFromFolder(tmp.path() + "/empty");
    QTRY_VERIFY_WITH_TIMEOUT(created.count() == 3, 30000);
    QVERIFY(created.last().at(1).toString().contains("no images"));
    QVERIFY(ds->findChild<QLabel*>("datasetSummary")->text().contains("no images"));
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
