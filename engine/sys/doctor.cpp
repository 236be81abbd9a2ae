#include "ywb/doctor.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <jconfig.h>  // libjpeg-turbo version macros

#include <opencv2/core/version.hpp>
#include <sstream>

#include "core/error.h"
#include "core/threads.h"
#include "sys/host_info.h"
#include "sys/nvml.h"
#include "sys/torch_info.h"
#include "train/amp_speed.h"
#include "ywb/version.h"

namespace ywb {
namespace {

int archNumber(const std::string& arch) {
  // "sm_90a" -> 90, "compute_86" -> 86
  auto us = arch.find('_');
  return us == std::string::npos ? -1 : std::atoi(arch.c_str() + us + 1);
}

void checkTorchComputes(DoctorReport& r) {
  try {
    auto a = at::arange(16, at::kFloat).reshape({4, 4});
    const float s = a.matmul(a).sum().item<float>();
    // sum over i,j of (A A)_ij where A_ij = 4i + j: column sums 24+4k times row sums 16k+6, summed over
    // k=0..3: 3920
    if (s != 3920.0f)
      r.problems.push_back("LibTorch computed a wrong CPU matrix product (" + std::to_string(s) + ")");
  } catch (...) {
    r.problems.push_back("LibTorch cannot run a CPU matrix product: " + describeCurrentException());
  }
}

void addGpuFindings(DoctorReport& r, const DoctorOptions& opt) {
  for (auto& g : r.gpus) {
    if (!r.torch_cuda) continue;
    g.kernel_support = kernelSupportFor(g.cc_major, g.cc_minor, r.torch_arches);
    const std::string cc = std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
    const std::string sm = "sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor);
    if (g.kernel_support == "none") {
      r.problems.push_back(
          "GPU " + std::to_string(g.index) + " (" + g.name + ", compute capability " + cc +
          ") has no kernels in this LibTorch (built for " + std::to_string(r.torch_arches.size()) +
          " architectures, not " + sm +
          "): training would fail or hang at the first kernel. "
          "Fix: install a LibTorch built with CUDA >= 11.8 for sm_90 / >= 12.8 for sm_100 and "
          "point CMAKE_PREFIX_PATH at it.");
    } else if (g.kernel_support == "ptx-jit") {
      r.warnings.push_back(
          "GPU " + std::to_string(g.index) + " (" + g.name + ", " + sm +
          ") runs this LibTorch only through PTX JIT: the first start can take tens of minutes. "
          "Fix: use a LibTorch built for " +
          sm + ".");
    }
  }
  if (r.torch_cuda && !r.driver_cuda_version.empty() && !r.torch_cuda_runtime.empty()) {
    auto ver = [](const std::string& v) { return std::atof(v.c_str()); };
    if (ver(r.driver_cuda_version) + 1e-9 < ver(r.torch_cuda_runtime) &&
        std::atoi(r.driver_cuda_version.c_str()) != std::atoi(r.torch_cuda_runtime.c_str())) {
      r.problems.push_back("the NVIDIA driver supports CUDA " + r.driver_cuda_version +
                           " but LibTorch needs CUDA " + r.torch_cuda_runtime + ". Fix: update the driver (" +
                           r.driver_version + ").");
    }
  }
  if (r.torch_cuda && opt.probe_cuda) {
    for (int i = 0; i < r.torch_cuda_devices; ++i) {
      const std::string err = probeCudaDevice(i, opt.probe_timeout_s);
      if (!err.empty())
        r.problems.push_back("CUDA device " + std::to_string(i) + " failed a test kernel: " + err);
    }
  }
  if (!r.gpus.empty() && !r.torch_cuda) {
    r.warnings.push_back(
        std::to_string(r.gpus.size()) +
        " NVIDIA GPU(s) present but this LibTorch has no CUDA: training runs on the CPU. Fix: "
        "build against an upstream CUDA LibTorch (-DCMAKE_PREFIX_PATH=.../libtorch).");
  }
}

}  // namespace

std::string kernelSupportFor(int cc_major, int cc_minor, const std::vector<std::string>& arches) {
  if (cc_major < 0) return "unknown";
  const int cc = cc_major * 10 + cc_minor;
  bool compatible = false, ptx = false;
  for (const auto& a : arches) {
    const int n = archNumber(a);
    if (n < 0) continue;
    if (a.rfind("sm_", 0) == 0) {
      if (n == cc) return "native";
      // SASS runs on later minor versions of the same major architecture only.
      if (n / 10 == cc_major && n < cc) compatible = true;
    } else if (a.rfind("compute_", 0) == 0 && n <= cc) {
      ptx = true;
    }
  }
  if (compatible) return "compatible";
  return ptx ? "ptx-jit" : "none";
}

DoctorReport runDoctor(const DoctorOptions& opt) {
  DoctorReport r;
  r.ywb_version = kVersion;
  const TorchBuildInfo tb = torchBuildInfo();
  r.torch_version = tb.version;
  r.torch_cuda = tb.cuda;
  r.torch_cuda_runtime = tb.cuda_runtime;
  r.cudnn = tb.cudnn;
  r.cudnn_version = tb.cudnn_version;
  r.nccl = tb.nccl;
  r.mkldnn = tb.mkldnn;
  r.openmp = tb.openmp;
  r.torch_arches = tb.arches;
  r.torch_threads_default = at::get_num_threads();
  r.torch_threads = configureTorchThreads(0);
  r.opencv_version = CV_VERSION;
  r.qt_version = qtRuntimeVersion();
  {
    std::ostringstream os;
    os << LIBJPEG_TURBO_VERSION_NUMBER / 1000000 << "." << (LIBJPEG_TURBO_VERSION_NUMBER / 1000) % 1000 << "."
       << LIBJPEG_TURBO_VERSION_NUMBER % 1000;
    r.turbojpeg_version = os.str();
  }
  checkTorchComputes(r);  // also maps the BLAS library into the process
  // LibTorch built with MKL (upstream x86 builds) carries its BLAS inside; a libblas.so.3 mapped beside it
  // (OpenCV's dependency) is not the one it uses. Only a LibTorch on the system BLAS (Debian's,
  // BLAS_INFO=generic) runs at the speed of whichever libblas.so.3 is installed.
  r.blas = tb.blas_info == "mkl" ? "mkl (inside LibTorch)" : loadedBlas();
  if (r.blas == "reference") {
    r.warnings.push_back(
        "LibTorch uses the reference BLAS: 1x1 convolutions run 4-8x slower. Fix: "
        "sudo apt-get install libopenblas0-pthread");
  }
  r.cpu_model = cpuModelName();
  r.cpu_bf16 = cpuBf16Support().summary;
  if (opt.probe_cpu_amp) {
    try {
      r.cpu_amp = cpuAmpChoice();
    } catch (...) {
      r.cpu_amp = "fp32 (bf16 autocast failed: " + describeCurrentException() + ")";
    }
  }
  r.cpu_logical = logicalCpuCount();
  r.cpu_available = availableCpus();
  memoryInfo(&r.ram_total, &r.ram_available);
  r.runs_dir = opt.runs_dir;
  r.disk_free = diskFree(opt.runs_dir);
  if (r.disk_free >= 0 && r.disk_free < opt.min_disk_free) {
    r.problems.push_back(
        "only " + std::to_string(r.disk_free >> 20) + " MiB free under '" + opt.runs_dir +
        "': checkpoints need space. Fix: free disk space or choose another project= folder.");
  }
  if (r.ram_available >= 0 && r.ram_available < (int64_t(1) << 30)) {
    r.warnings.push_back("less than 1 GiB of RAM available: lower batch= and workers=");
  }

  std::string why;
  const std::string lib = opt.nvml_library.empty() ? Nvml::defaultLibrary() : opt.nvml_library;
  auto nvml = Nvml::open(lib, &why);
  if (nvml) {
    r.nvml_available = true;
    r.nvml_status = "loaded " + lib;
    r.driver_version = nvml->driverVersion();
    r.driver_cuda_version = nvml->cudaDriverVersion();
    for (const auto& d : nvml->readAll()) {
      GpuInfo g;
      g.index = d.index;
      g.name = d.name;
      g.cc_major = d.cc_major;
      g.cc_minor = d.cc_minor;
      g.mem_total = d.mem_total;
      g.mem_used = d.mem_used;
      g.mem_free = d.mem_free;
      g.util_gpu = d.util_gpu;
      g.temperature_c = d.temperature_c;
      g.power_w = d.power_w;
      g.power_limit_w = d.power_limit_w;
      r.gpus.push_back(g);
    }
  } else {
    r.nvml_available = false;
    r.nvml_status =
        "NVML not available: " + why + ". No NVIDIA driver: GPU telemetry is off and training uses the CPU.";
  }
  r.torch_cuda_devices = r.torch_cuda ? torchCudaDeviceCount() : 0;
  if (r.torch_cuda && r.torch_cuda_devices == 0) {
    r.warnings.push_back(
        "this LibTorch has CUDA but sees no CUDA device" +
        std::string(r.nvml_available ? " (check CUDA_VISIBLE_DEVICES)" : " (no NVIDIA driver)"));
  }
  addGpuFindings(r, opt);
  return r;
}

}  // namespace ywb
