// The workbench on a GPU (issue 33; label cuda: installer/gpu-check.sh runs it there, under the offscreen
// platform of the Qt it unpacked): the real main window starts a 2-epoch run on device 0 from the Training
// tab on a generated shapes set at 640 px; mid-run (in the first epoch's steps) it saves screenshots of the
// window on the Training tab and of the System dock (into $YWB_SCREENSHOT_DIR, gpu-check's report folder,
// else build/screenshots); after the run the GPU load and memory series of the dock and of the Training
// tab's charts are checked against the real NVML, read through the engine's SystemMonitor (never the fake
// of test_main_window). Skips with the reason where there is no CUDA device or no NVML.
#include <qcustomplot.h>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <numeric>

#include "hyperparams_tab.h"
#include "main_window.h"
#include "metric_chart.h"
#include "support/screenshots.h"
#include "system_panel.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/doctor.h"
#include "ywb/synth.h"
#include "ywb/system_monitor.h"
#include "ywb/train_events.h"

namespace {

// The values of a series whose x lies in (from, to].
QVector<double> valuesIn(QCPGraph* g, double from, double to) {
  QVector<double> v;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    if (it->key > from && it->key <= to) v << it->value;
  return v;
}

double lastKey(QCPGraph* g) {
  return g->data()->isEmpty() ? -1 : (g->data()->constEnd() - 1)->key;
}

double maxOf(const QVector<double>& v) {
  return v.isEmpty() ? 0 : *std::max_element(v.begin(), v.end());
}

QString list(const QVector<double>& v) {
  QStringList s;
  for (double x : v) s << QString::number(x, 'f', 1);
  return s.join(' ');
}

}  // namespace

class TestGuiGpu : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("ywb-tests");  // keep test settings away from the user's
    QCoreApplication::setApplicationName("test_gui_gpu");
    qunsetenv("YWB_NVML_LIB");  // the driver's own NVML
  }

  void trainsOnTheGpuWithLiveNvmlCharts() {
    ywb::DoctorOptions probe;
    probe.probe_cpu_amp = false;
    const ywb::DoctorReport env = ywb::runDoctor(probe);
    if (!env.torch_cuda) QSKIP("no CUDA: this engine was built against a CPU-only LibTorch");
    if (env.torch_cuda_devices < 1) QSKIP("no CUDA: no CUDA device is visible to LibTorch");
    ywb::SystemMonitor nvml;
    if (!nvml.hasNvml()) QSKIP(qPrintable("no NVML: " + QString::fromStdString(nvml.nvmlStatus())));
    const ywb::SystemSample before = nvml.sample();
    QVERIFY(!before.gpus.empty());
    const double gib = double(1 << 30);
    const double total_gib = double(before.gpus[0].mem_total) / gib,
                 before_gib = before.gpus[0].mem_used / gib;
    QVERIFY2(total_gib > 1 && before_gib > 0 && before_gib < total_gib,
             qPrintable(QString("NVML: %1 of %2 GiB used").arg(before_gib).arg(total_gib)));

    // 1,024 training images of 640 px in batches of 32: 32 steps per epoch, the first of them seconds long
    // (cuDNN's autotuning, lazy CUDA start-up), so the run lasts well over the 5 sampler ticks checked below.
    QTemporaryDir tmp;
    ywb::SynthOptions synth;
    synth.out = tmp.path().toStdString() + "/shapes640";
    synth.train = 1024;
    synth.val = 64;
    synth.imgsz = 640;
    const QString data = QString::fromStdString(ywb::synthesizeDataset(synth).data_yaml);

    ywb::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentWidget(w.training());
    QCustomPlot* dock = w.systemPanel()->chart();
    // CPU, RAM, then GPU0's load and memory (% of the device's total) once the first NVML sample is in.
    QTRY_VERIFY_WITH_TIMEOUT(dock->graphCount() >= 4 && dock->graph(3)->dataCount() >= 1, 10000);
    QCOMPARE(dock->graph(2)->name(), QString("GPU0 load"));
    QCOMPARE(dock->graph(3)->name(), QString("GPU0 memory"));

    auto* hyper = w.hyperparams();
    const QList<QPair<QString, QString>> settings = {
        {"data", data},     {"epochs", "2"},       {"batch", "32"},
        {"imgsz", "640"},   {"device", "0"},       {"amp", "true"},
        {"workers", "8"},   {"close_mosaic", "0"}, {"project", tmp.path() + "/runs"},
        {"name", "gui-gpu"}};
    for (const auto& kv : settings) QVERIFY2(hyper->setValue(kv.first, kv.second), qPrintable(kv.first));
    auto* tab = w.training();
    auto* ctl = tab->controller();
    QSignalSpy finished(ctl, &ywb::gui::TrainingController::finished);
    QSignalSpy failed(ctl, &ywb::gui::TrainingController::failed);
    QSignalSpy ended(ctl, &ywb::gui::TrainingController::stoppedRunning);
    const double t_start = lastKey(dock->graph(2));
    QElapsedTimer clock;
    clock.start();
    tab->startTraining();
    QVERIFY2(ctl->running(),
             failed.isEmpty() ? "not started" : qPrintable(failed.first().first().toString()));

    // Mid-run: a tenth of the run's steps done (log cadence on CUDA: every 10th step, so about a fifth of the
    // way into the first epoch).
    auto* progress = tab->findChild<QProgressBar*>();
    QVERIFY(progress);
    QTRY_VERIFY_WITH_TIMEOUT(progress->value() >= 100 || !ended.isEmpty(), 240000);
    QVERIFY2(ended.isEmpty(), failed.isEmpty() ? "the run ended before its first epoch's steps"
                                               : qPrintable(failed.first().first().toString()));
    const double first_steps_s = clock.elapsed() / 1000.0;
    QTest::qWait(300);  // the queued replots
    const QString shots = shotsDir();
    QVERIFY(w.grab().save(shots + "/gui_gpu_training.png"));
    auto* system_dock = w.findChild<QDockWidget*>("systemDock");
    QVERIFY(system_dock && system_dock->isVisible());
    QVERIFY(system_dock->grab().save(shots + "/gui_gpu_system.png"));

    QTRY_VERIFY_WITH_TIMEOUT(!ended.isEmpty(), 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 1);
    const auto summary = finished.first().first().value<ywb::TrainSummary>();
    QCOMPARE(summary.epochs_completed, 2);

    // The System dock during the run: one sample a second; load in [0, 100] and above 0 at some point (the
    // GPU trained), memory in (0, 100] % of the device.
    const double t_end = lastKey(dock->graph(2));
    const QVector<double> load = valuesIn(dock->graph(2), t_start, t_end);
    const QVector<double> mem = valuesIn(dock->graph(3), t_start, t_end);
    QVERIFY2(load.size() >= 5,
             qPrintable(QString("%1 samples in %2 s").arg(load.size()).arg(t_end - t_start)));
    QCOMPARE(mem.size(), load.size());
    for (double v : load) QVERIFY2(v >= 0 && v <= 100, qPrintable(list(load)));
    for (double v : mem) QVERIFY2(v > 0 && v <= 100, qPrintable(list(mem)));
    QVERIFY2(maxOf(load) > 0, qPrintable(list(load)));

    // The Training tab's Memory chart: the driver's count for GPU0 in GiB, in (0, total]; it rose by at least
    // 0.25 GiB above what this process and the others held before the run (YOLOv8n at 640, batch 32, holds
    // gigabytes of activations: 10.5 GB at batch 64 on the H200), and the tensor allocator's series have the
    // run's own figures: the tensors' peak of each step, at least 1 GiB at some step (yolov8n at 640, batch
    // 32, fp16: bench model's pool was 8.1 GiB at batch 64 on the H200), and a pool that holds it. The third
    // GPU run showed the bytes in use between steps here (0.3 GiB at most).
    ywb::gui::MetricChart* memory = tab->chart("memory");
    QVERIFY(memory);
    const QVector<double> used = valuesIn(memory->graph(1), -1, 1e9);
    const QVector<double> pool = valuesIn(memory->graph(2), -1, 1e9);
    const QVector<double> peak = valuesIn(memory->graph(3), -1, 1e9);
    QVERIFY2(used.size() >= 5, qPrintable(list(used)));
    for (double v : used)
      QVERIFY2(v > 0 && v <= total_gib, qPrintable(list(used) + " of " + QString::number(total_gib)));
    QVERIFY2(maxOf(used) >= before_gib + 0.25,
             qPrintable(QString("%1 GiB before, %2").arg(before_gib).arg(list(used))));
    QCOMPARE(pool.size(), peak.size());
    for (int i = 0; i < pool.size(); ++i)
      QVERIFY2(pool[i] >= peak[i], qPrintable(list(pool) + " vs " + list(peak)));
    QVERIFY2(maxOf(peak) >= 1.0, qPrintable(list(peak)));
    // Its System load chart has the same GPU series as the dock (load and memory of GPU0).
    ywb::gui::MetricChart* system = tab->chart("system");
    QVERIFY(system && system->points(2) >= 5 && system->points(3) >= 5);

    const double mean_load = std::accumulate(load.begin(), load.end(), 0.0) / load.size();
    qInfo(
        "gui-gpu: %s, %.0f GiB: %d samples in %.0f s of training; GPU load max %.0f%%, mean %.0f%%; memory "
        "max %.1f GiB (NVML, %.1f before the run), tensor pool max %.1f GiB, step peak max %.1f GiB",
        env.gpus.empty() ? "GPU0" : env.gpus[0].name.c_str(), total_gib, int(load.size()), t_end - t_start,
        maxOf(load), mean_load, maxOf(used), before_gib, maxOf(pool), maxOf(peak));
    qInfo(
        "gui-gpu: first steps on the charts %.1f s after Start; run %.1f s, %.0f images/s, AMP %s; "
        "screenshots %s/gui_gpu_training.png, gui_gpu_system.png",
        first_steps_s, summary.seconds, summary.images_per_s, summary.amp.c_str(), qPrintable(shots));
  }
};

QTEST_MAIN(TestGuiGpu)
#include "test_gui_gpu.moc"
