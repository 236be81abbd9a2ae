// Tests of the environment doctor: NVML absence, NVML readings through a fake driver library,
// the kernel-support rule, parsing of LibTorch build configurations, and the system monitor.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "sys/host_info.h"
#include "sys/torch_info.h"
#include "ywb/doctor.h"
#include "ywb/system_monitor.h"

class TestDoctor : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void reportsNvmlAbsenceWithoutFailing() {
    ywb::DoctorOptions opt;
    opt.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    const ywb::DoctorReport r = ywb::runDoctor(opt);
    QVERIFY(!r.nvml_available);
    QVERIFY2(QString::fromStdString(r.nvml_status).contains("cannot load /nonexistent/libnvidia-ml.so.1"),
             r.nvml_status.c_str());
    QVERIFY(r.gpus.empty());
    // A CPU-only machine can train: no NVML is not a problem.
    QVERIFY2(r.ok(), r.problems.empty() ? "" : r.problems.front().c_str());
    const QJsonObject j =
        QJsonDocument::fromJson(QByteArray::fromStdString(ywb::doctorReportJson(r))).object();
    QCOMPARE(j["nvml"].toObject()["available"].toBool(), false);
    QCOMPARE(j["gpus"].toArray().size(), 0);
    QCOMPARE(j["ok"].toBool(), true);
    QVERIFY(ywb::doctorReportText(r).find("NVML not available") != std::string::npos);
  }

  void rejectsALibraryThatIsNotNvml() {
    // libc exists everywhere but has no nvmlInit: reported as not an NVML library.
    ywb::DoctorOptions opt;
    opt.nvml_library = "libc.so.6";
    const ywb::DoctorReport r = ywb::runDoctor(opt);
    QVERIFY(!r.nvml_available);
    QVERIFY2(QString::fromStdString(r.nvml_status).contains("lacks the NVML entry points"),
             r.nvml_status.c_str());
  }

  void readsGpusThroughNvml() {
    ywb::DoctorOptions opt;
    opt.nvml_library = YW_FAKE_NVML;
    const ywb::DoctorReport r = ywb::runDoctor(opt);
    QVERIFY(r.nvml_available);
    // Expected values are the fake library's canned readings (tests/fakes/fake_nvml.c).
    QCOMPARE(r.driver_version, std::string("550.54.15"));
    QCOMPARE(r.driver_cuda_version, std::string("12.4"));
    QCOMPARE(r.gpus.size(), size_t(2));
    QCOMPARE(r.gpus[0].name, std::string("Fake H100 80GB HBM3"));
    QCOMPARE(r.gpus[0].cc_major, 9);
    QCOMPARE(r.gpus[0].cc_minor, 0);
    QCOMPARE(r.gpus[0].mem_total, int64_t(80) << 30);
    QCOMPARE(r.gpus[0].mem_free, int64_t(60) << 30);
    QCOMPARE(r.gpus[0].util_gpu, 87);
    QCOMPARE(r.gpus[0].temperature_c, 65);
    QCOMPARE(r.gpus[0].power_w, 350.5);
    QCOMPARE(r.gpus[1].power_limit_w, 180.0);
    if (!r.torch_cuda) {
      // GPUs but a CPU LibTorch: a warning that names the fix, and no kernel verdict.
      QCOMPARE(r.gpus[0].kernel_support, std::string("unknown"));
      bool warned = false;
      for (const auto& w : r.warnings) warned = warned || w.find("has no CUDA") != std::string::npos;
      QVERIFY(warned);
    }
  }

  void kernelSupportRule() {
    // A cu117-style build: SASS up to sm_86 plus PTX for compute_86.
    const std::vector<std::string> cu117 = {"sm_37", "sm_50", "sm_60", "sm_70",
                                            "sm_75", "sm_80", "sm_86", "compute_86"};
    QCOMPARE(ywb::kernelSupportFor(8, 6, cu117), std::string("native"));
    QCOMPARE(ywb::kernelSupportFor(8, 9, cu117), std::string("compatible"));  // sm_86 SASS runs on 8.9
    QCOMPARE(ywb::kernelSupportFor(6, 1, cu117), std::string("compatible"));  // sm_60 SASS runs on 6.1
    QCOMPARE(ywb::kernelSupportFor(9, 0, cu117), std::string("ptx-jit"));     // H100: only PTX JIT
    const std::vector<std::string> no_ptx = {"sm_70", "sm_80", "sm_86"};
    QCOMPARE(ywb::kernelSupportFor(9, 0, no_ptx), std::string("none"));
    QCOMPARE(ywb::kernelSupportFor(7, 5, no_ptx), std::string("compatible"));
    QCOMPARE(ywb::kernelSupportFor(-1, -1, no_ptx), std::string("unknown"));
  }

  void parsesCudaBuildConfig() {
    // Shape of at::show_config() from an upstream CUDA build (abridged from a LibTorch 2.1 cu121 build).
    const std::string cfg =
        "PyTorch built with:\n  - GCC 9.3\n  - CUDA Runtime 12.1\n"
        "  - NVCC architecture flags: "
        "-gencode;arch=compute_50,code=sm_50;-gencode;arch=compute_80,code=sm_80;"
        "-gencode;arch=compute_90,code=sm_90;-gencode;arch=compute_90,code=compute_90\n"
        "  - CuDNN 8.9.2\n  - Build settings: BLAS_INFO=mkl, TORCH_VERSION=2.1.0, USE_CUDA=ON, USE_CUDNN=ON, "
        "USE_MKLDNN=ON, USE_NCCL=1, USE_OPENMP=ON, \n";
    const ywb::TorchBuildInfo b = ywb::parseTorchConfig(cfg);
    QCOMPARE(b.version, std::string("2.1.0"));
    QVERIFY(b.cuda && b.cudnn && b.nccl && b.mkldnn && b.openmp);
    QCOMPARE(b.cuda_runtime, std::string("12.1"));
    QCOMPARE(b.cudnn_version, std::string("8.9.2"));
    QCOMPARE(b.blas_info, std::string("mkl"));
    QCOMPARE(b.arches, (std::vector<std::string>{"sm_50", "sm_80", "sm_90", "compute_90"}));
  }

  void parsesCudnn9Version() {
    // PyTorch 2.11 cu130 printed cuDNN 9.19.0 (91900) as "CuDNN 91.9" (its cuDNN 8 formula v/1000,
    // (v%1000)/100): the report says 9.19. cuDNN 8's own "8.9.2" stays as printed (case above).
    const ywb::TorchBuildInfo b = ywb::parseTorchConfig(
        "PyTorch built with:\n  - CuDNN 91.9\n  - Build settings: BLAS_INFO=mkl, TORCH_VERSION=2.11.0, "
        "USE_CUDNN=ON\n");
    QCOMPARE(b.cudnn_version, std::string("9.19"));
    QCOMPARE(ywb::parseTorchConfig("  - CuDNN 90.1\n").cudnn_version, std::string("9.1"));  // 90100: 9.1
  }

  void parsesThisBuild() {
    // Debian's LibTorch here is CPU-only; whatever the build, version must be found and match TORCH_VERSION.
    const ywb::TorchBuildInfo b = ywb::torchBuildInfo();
    QVERIFY(!b.version.empty());
    const ywb::DoctorReport r = ywb::runDoctor({});
    QCOMPARE(r.torch_version, b.version);
    QVERIFY(r.torch_threads >= 1);
    QCOMPARE(r.cpu_logical, ywb::logicalCpuCount());
    QVERIFY(r.ram_total > 0 && r.ram_available > 0 && r.ram_available <= r.ram_total);
  }

  // The start-up figure's clock (first training step "after the process started"). A process older than
  // kLongestLoadS when the engine initialised ran something else before it exec'd this program (a script's
  // `exec ywb`, as installer/quickstart.sh after its build: it reported 2,653 s): counted from the engine's
  // start plus the CPU time spent by then (the loader's, about). Else from the fork, loader included.
  void processAgeCountsFromTheProgramsStart() {
    // Fork age within kLongestLoadS: the fork's clock, loader included.
    QCOMPARE(ywb::processAgeFrom(0.4, 0.5, 2.0), 2.4);
    QCOMPARE(ywb::processAgeFrom(ywb::kLongestLoadS, 0.5, 2.0), ywb::kLongestLoadS + 2.0);
    // Exec'd after 2,650 s: the engine's clock plus the CPU time by its start (the loader's, about)...
    QCOMPARE(ywb::processAgeFrom(2650.0, 0.75, 2.0), 2.75);
    // ...never more than the fork's age, and without /proc the CPU time alone.
    QCOMPARE(ywb::processAgeFrom(12.0, 30.0, 2.0), 14.0);
    QCOMPARE(ywb::processAgeFrom(-1, 0.5, 2.0), 2.5);
    // This test was started by ctest (fork, exec at once): its age is its own, and it grows.
    QElapsedTimer t;
    t.start();
    const double a = ywb::processAgeSeconds();
    QVERIFY2(a > 0 && a < 60, qPrintable(QString::number(a)));
    QTest::qWait(50);
    const double b = ywb::processAgeSeconds();
    QVERIFY2(b - a >= 0.04 && b - a <= t.elapsed() / 1000.0 + 0.02, qPrintable(QString::number(b - a)));
  }

  void systemMonitorSamples() {
    ywb::SystemMonitor mon(YW_FAKE_NVML);
    QVERIFY(mon.hasNvml());
    mon.sample();
    volatile double x = 0;
    for (int i = 0; i < 20000000; ++i) x = x + i * 1e-9;  // burn some CPU between samples
    const ywb::SystemSample s = mon.sample();
    QVERIFY(s.cpu_percent > 0 && s.cpu_percent <= 100.0);
    QVERIFY(s.ram_total > 0 && s.ram_used > 0 && s.ram_used < s.ram_total);
    QVERIFY(s.process_rss > 0);
    QCOMPARE(s.gpus.size(), size_t(2));
    QCOMPARE(s.gpus[1].mem_used, int64_t(1) << 30);  // fake_nvml.c: GPU 1 uses 1 GiB
    ywb::SystemMonitor none("/nonexistent/libnvml.so");
    QVERIFY(!none.hasNvml());
    QVERIFY(none.sample().gpus.empty());
  }
};

QTEST_GUILESS_MAIN(TestDoctor)
#include "test_doctor.moc"
