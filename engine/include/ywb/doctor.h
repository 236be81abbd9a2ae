// Environment doctor: what this machine and this build can do, and what would stop training.
// Thread rules: runDoctor() is reentrant; it may take a few seconds when it probes GPUs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

/// One GPU as NVML and LibTorch see it. Unknown numbers are -1.
struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = -1, cc_minor = -1;
  int64_t mem_total = -1, mem_used = -1, mem_free = -1;  // bytes
  int util_gpu = -1;                                     // percent
  int temperature_c = -1;
  double power_w = -1, power_limit_w = -1;
  /// "native" (exact SASS), "compatible" (same-major SASS), "ptx-jit" (slow first start), "none", or
  /// "unknown" (no CUDA in this LibTorch, so the question does not arise).
  std::string kernel_support = "unknown";
};

/// Everything the doctor found. `problems` would stop training; `warnings` would slow or surprise it.
struct DoctorReport {
  std::string ywb_version;
  // LibTorch build
  std::string torch_version;
  bool torch_cuda = false;
  std::string torch_cuda_runtime;  // CUDA runtime LibTorch was built with, e.g. "12.1"
  bool cudnn = false;
  std::string cudnn_version;
  bool nccl = false;
  bool mkldnn = false;
  bool openmp = false;
  std::string blas;  // BLAS library actually loaded (e.g. "openblas-pthread", "reference")
  std::vector<std::string> torch_arches;  // e.g. {"sm_80", "sm_90", "compute_90"}
  int torch_threads = 0;                  // intra-op threads after configuration
  int torch_threads_default = 0;          // what LibTorch chose by itself
  std::string opencv_version;
  std::string qt_version;  // of the Qt runtime found on this machine; empty if none
  std::string turbojpeg_version;
  // CUDA / NVIDIA driver
  int torch_cuda_devices = 0;
  bool nvml_available = false;
  std::string nvml_status;  // why NVML is unavailable, or the library that was loaded
  std::string driver_version;
  std::string driver_cuda_version;  // highest CUDA version the driver supports
  std::vector<GpuInfo> gpus;
  // Host
  std::string cpu_model;
  /// Whether the CPU runs bf16 natively, e.g. "native (avx512_bf16)", "not native (AVX2, no avx512_bf16 or
  /// amx_bf16)".
  std::string cpu_bf16;
  /// What `amp=true` trains in on this CPU and why, from a measured YOLOv8n forward+backward in both
  /// precisions (the trainer measures its own model again): e.g. "fp32 (bf16 12.10x slower than fp32 ...)".
  /// Empty when not probed.
  std::string cpu_amp;
  int cpu_logical = 0;
  int cpu_available = 0;                       // affinity-aware
  int64_t ram_total = -1, ram_available = -1;  // bytes
  std::string runs_dir;
  int64_t disk_free = -1;  // bytes free under runs_dir
  std::vector<std::string> warnings;
  std::vector<std::string> problems;

  bool ok() const { return problems.empty(); }
};

struct DoctorOptions {
  std::string runs_dir = "runs";
  /// NVML library to load; empty = Nvml default (libnvidia-ml.so.1, or $YWB_NVML_LIB).
  std::string nvml_library;
  /// Run a tiny kernel on every CUDA device (detects missing kernels for the GPU's architecture).
  bool probe_cuda = true;
  double probe_timeout_s = 120;
  /// Time a small model's training pass in fp32 and bf16 on the CPU (about a second) to say what amp=true
  /// chooses here.
  bool probe_cpu_amp = true;
  /// Minimum free disk under runs_dir before it counts as a problem.
  int64_t min_disk_free = int64_t(1) << 30;
};

/// The CPU's bf16 support as oneDNN will use it. `native`: the flags avx512_bf16 or amx_bf16 are present and
/// no DNNL_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA limit below them is set. `summary`: e.g. "native (avx512_bf16)",
/// "not native (AVX2, no avx512_bf16 or amx_bf16)", "not native (the CPU has avx512_bf16, but oneDNN is
/// limited to AVX2 by DNNL_MAX_CPU_ISA)". Reads /proc/cpuinfo; instant.
struct CpuBf16 {
  bool native = false;
  std::string summary;
};
CpuBf16 cpuBf16Support();

/// What amp=true trains in on this CPU, measured on a YOLOv8n (80 classes, one 128-px image, forward and
/// backward in both precisions; about a second): "bf16 (...)" or "fp32 (...)" with the two times. The
/// trainer measures its own model again at the start of each run (train/amp_check.cpp).
std::string cpuAmpChoice();

/// Examines the machine. Never throws for missing hardware; reports it instead.
DoctorReport runDoctor(const DoctorOptions& options = {});

/// The report as pretty JSON (same fields as the struct).
std::string doctorReportJson(const DoctorReport& report);
/// The report as the human-readable text `ywb doctor` prints.
std::string doctorReportText(const DoctorReport& report);

/// Decides the kernel support of a GPU of compute capability major.minor for a LibTorch built for
/// `arches` (see GpuInfo::kernel_support). Exposed for tests.
std::string kernelSupportFor(int cc_major, int cc_minor, const std::vector<std::string>& arches);

}  // namespace ywb
