// The GUI does not leak across runs (issue 17): five training runs started and stopped in one process (the
// real MainWindow, offscreen, the real engine on a worker thread), each stopped after its first validated
// epoch. Host RSS after each run has ended (the engine's SystemMonitor reading, VmRSS) stays within 5% (the
// issue's bar) of its value after the first run, which already holds everything loaded
// once (LibTorch's kernels and thread pools, the model code, Qt's widgets). tests/reliability/rss_long_run.sh
// runs it with more runs (YWB_GUI_RSS_RUNS) and writes the curve (YWB_RSS_CSV) for docs/RELIABILITY.md.
#include <vector>

#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "hyperparams_tab.h"
#include "main_window.h"
#include "support/tiny_run.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/heap.h"
#include "ywb/system_monitor.h"

using ywb::gui::MainWindow;

namespace {
// The kernel's split of this process's RSS (/proc/self/status): anonymous memory (the heap: our objects and
// the allocator's free memory), file-backed pages (library code paged in) and shared memory; then the
// allocator's own count of the heap bytes in use (live allocations) and free (ywb::heapUsage), in MB.
QString rssParts() {
  QFile f("/proc/self/status");
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList parts;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("RssAnon") || line.startsWith("RssFile") || line.startsWith("RssShmem")) {
      const QList<QByteArray> w = line.simplified().split(' ');
      if (w.size() >= 2)
        parts << QString("%1 %2 MB").arg(QString(w[0])).arg(w[1].toDouble() / 1024.0, 0, 'f', 1);
    }
  // Anonymous RSS by kind (/proc/self/smaps): the main heap, thread stacks (a read-write mapping right above
  // its 4 KiB guard page; glibc keeps up to 40 MiB of exited threads' stacks for reuse) and the rest
  // (glibc's other arenas, LibTorch's and Qt's own mappings).
  QFile sm("/proc/self/smaps");
  if (sm.open(QIODevice::ReadOnly)) {
    enum Kind { kNone, kHeap, kStack, kOther };
    double mb[4] = {};  // by Kind
    int n_stacks = 0;
    quint64 prev_end = 0, prev_size = 0;
    bool prev_guard = false;
    Kind kind = kNone;
    for (const QByteArray& line : sm.readAll().split('\n')) {
      const QList<QByteArray> w = line.simplified().split(' ');
      if (w.isEmpty()) continue;
      if (w[0].contains('-') && w.size() >= 5) {  // a mapping's header
        const QList<QByteArray> range = w[0].split('-');
        const quint64 start = range[0].toULongLong(nullptr, 16), end = range[1].toULongLong(nullptr, 16);
        const QByteArray perms = w[1], path = w.size() >= 6 ? w[5] : QByteArray();
        kind = kNone;
        if (path == "[heap]") {
          kind = kHeap;
        } else if (path.isEmpty() && perms.startsWith("rw")) {
          kind = (prev_guard && prev_end == start && prev_size == 4096) ? kStack : kOther;
          if (kind == kStack) ++n_stacks;
        }
        prev_guard = path.isEmpty() && perms.startsWith("---");
        prev_end = end;
        prev_size = end - start;
      } else if (w[0] == "Rss:" && w.size() >= 2) {
        mb[kind] += w[1].toDouble() / 1024.0;
      }
    }
    parts << QString("[heap] %1 MB, %2 thread stacks %3 MB, other anonymous %4 MB")
                 .arg(mb[kHeap], 0, 'f', 1)
                 .arg(n_stacks)
                 .arg(mb[kStack], 0, 'f', 1)
                 .arg(mb[kOther], 0, 'f', 1);
  }
  const ywb::HeapUsage heap = ywb::heapUsage();
  parts << QString("heap in use %1 MB, free %2 MB")
               .arg(double(heap.in_use) / 1e6, 0, 'f', 1)
               .arg(double(heap.free_held) / 1e6, 0, 'f', 1);
  return parts.join(", ");
}
}  // namespace

class TestGuiMemory : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");
    QCoreApplication::setApplicationName("test_gui_memory");
    QVERIFY(tmp_.isValid());
  }

  void guiRunsOnJemallocWithOneArena() {
    // What the GUI ships with (ywb/heap.h): the GUI library links jemalloc, so this test process runs on it,
    // and gui/training_controller.cpp's malloc_conf gives it one arena. Without the link heapAllocator() says
    // glibc; without the setting jemalloc makes 4 arenas per core (8 here, more on a workstation).
    if (qEnvironmentVariableIsSet("MALLOC_CONF")) QSKIP("MALLOC_CONF overrides the GUI's jemalloc settings");
    const ywb::HeapAllocator heap = ywb::heapAllocator();
    QVERIFY2(heap.jemalloc, heap.name.c_str());
    QVERIFY2(QString::fromStdString(heap.name).startsWith("jemalloc 5."), heap.name.c_str());
    QCOMPARE(heap.arenas, 1);
    // The purge hands jemalloc's unused pages back. 64 MiB written and freed stay resident for reuse (the
    // GUI's setting: no time-based purge; 72-74 MB free held here, 2026-11-29; jemalloc's default 10 s decay
    // would return part at once: 42 of 64 MiB kept in a standalone program); after releaseFreeHeapMemory at
    // most a quarter of it is held (4-6 MB here).
    {
      std::vector<std::vector<char>> blocks;
      for (int i = 0; i < 64; ++i) blocks.emplace_back(size_t(1) << 20, char(i + 1));  // touched: resident
      volatile char sink = 0;  // the blocks are read, so they cannot be optimised away
      for (const auto& b : blocks) sink = char(sink + b[b.size() / 2]);
    }
    const int64_t held = ywb::heapUsage().free_held;
    ywb::releaseFreeHeapMemory();
    const int64_t after = ywb::heapUsage().free_held;
    const QString seen = QString("free held %1 -> %2 MB").arg(held / 1e6).arg(after / 1e6);
    qInfo("%s", qPrintable(seen));
    QVERIFY2(held >= (int64_t(16) << 20) && after < held / 4, qPrintable(seen));
  }

  void fiveRunsStartedAndStoppedDoNotGrowRss() {
    bool ok = false;
    int runs = qEnvironmentVariableIntValue("YWB_GUI_RSS_RUNS", &ok);
    if (!ok || runs < 2) runs = 5;
    const QString data = QString::fromStdString(ywb::test::tinyDataset(tmp_.path().toStdString()));
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QList<QPair<QString, QString>> settings = {
        {"data", data},   {"epochs", "50"},      {"batch", "8"},    {"workers", "2"},
        {"amp", "false"}, {"imgsz", "96"},       {"device", "cpu"}, {"project", tmp_.path() + "/runs"},
        {"name", "leak"}, {"warmup_epochs", "0"}};
    for (const auto& kv : settings)
      QVERIFY2(w.hyperparams()->setValue(kv.first, kv.second), qPrintable(kv.first));
    auto* tab = w.training();
    auto* ctl = tab->controller();
    w.tabs()->setCurrentWidget(tab);  // the charts draw while the runs go
    QSignalSpy epochs(ctl, &ywb::gui::TrainingController::epochFinished);
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);
    QSignalSpy released(ctl, &ywb::gui::TrainingController::heapReleased);
    ywb::SystemMonitor monitor;
    std::vector<int64_t> rss;
    std::vector<double> in_use;  // the allocator's count of bytes in live allocations
    for (int k = 0; k < runs; ++k) {
      const int seen = int(epochs.count());
      tab->startTraining();
      QVERIFY(ctl->running());
      QTRY_VERIFY_WITH_TIMEOUT(epochs.count() > seen || !failed.isEmpty(), 120000);
      QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
      tab->stopTraining();
      QTRY_VERIFY_WITH_TIMEOUT(ended.count() == k + 1, 60000);
      QCOMPARE(int(finished.count()), k + 1);
      QVERIFY(finished.last().first().value<ywb::TrainSummary>().stopped);
      // The controller hands the free heap back a second after the end, once the views' end-of-run work is
      // done.
      QTRY_VERIFY_WITH_TIMEOUT(released.count() == k + 1, 10000);
      rss.push_back(monitor.sample().process_rss);
      in_use.push_back(double(ywb::heapUsage().in_use));
      qInfo("after run %d: host RSS %.1f MB (%s)", k + 1, double(rss.back()) / 1e6, qPrintable(rssParts()));
    }
    const QByteArray csv = qgetenv("YWB_RSS_CSV");
    if (!csv.isEmpty()) {
      QFile f(QString::fromLocal8Bit(csv));
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("run,rss_bytes\n");
      for (size_t i = 0; i < rss.size(); ++i)
        f.write(QByteArray::number(qlonglong(i + 1)) + "," + QByteArray::number(qlonglong(rss[i])) + "\n");
    }
    const double first = double(rss.front()), last = double(rss.back());
    qInfo("host RSS after run 1: %.1f MB, after run %d: %.1f MB (%+.2f%%)", first / 1e6, runs, last / 1e6,
          100 * (last / first - 1));
    // The bar: within 5% of the first run. glibc capped at one arena before main() gave
    // +0.49..+0.67% (2026-11-23), jemalloc with one arena +0.30..+0.47% (2026-11-29), jemalloc's default 8
    // arenas here +6.25%, glibc's default +8.4% (docs/RELIABILITY.md).
    QVERIFY(last < first * 1.05);
    // What would be a leak, a growing count of live allocations, is separate from how much free memory the
    // allocator keeps resident: the live heap is flat to +0.4% over six runs (glibc 77.9 -> 78.2 MB,
    // 2026-11-23; jemalloc 82.3 -> 82.5 MB, 2026-11-29).
    qInfo("heap in use after run 1: %.1f MB, after run %d: %.1f MB", in_use.front() / 1e6, runs,
          in_use.back() / 1e6);
    QVERIFY(in_use.back() < in_use.front() * 1.03);
  }

 private:
  QTemporaryDir tmp_;
};

QTEST_MAIN(TestGuiMemory)
#include "test_gui_memory.moc"
