#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ywb/doctor.h"

namespace ywb {
namespace {

std::string gib(int64_t bytes) {
  if (bytes < 0) return "unknown";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(int64_t(1) << 30));
  return buf;
}

std::string yesNo(bool b, const std::string& detail = {}) {
  if (!b) return "no";
  return detail.empty() ? "yes" : "yes (" + detail + ")";
}

}  // namespace

std::string doctorReportJson(const DoctorReport& r) {
  nlohmann::ordered_json j;
  j["ywb_version"] = r.ywb_version;
  j["torch"] = {{"version", r.torch_version},
                {"cuda", r.torch_cuda},
                {"cuda_runtime", r.torch_cuda_runtime},
                {"cudnn", r.cudnn},
                {"cudnn_version", r.cudnn_version},
                {"nccl", r.nccl},
                {"mkldnn", r.mkldnn},
                {"openmp", r.openmp},
                {"blas", r.blas},
                {"arches", r.torch_arches},
                {"threads", r.torch_threads},
                {"threads_default", r.torch_threads_default},
                {"cuda_devices", r.torch_cuda_devices}};
  j["opencv_version"] = r.opencv_version;
  j["qt_version"] = r.qt_version;
  j["turbojpeg_version"] = r.turbojpeg_version;
  j["nvml"] = {{"available", r.nvml_available},
               {"status", r.nvml_status},
               {"driver_version", r.driver_version},
               {"driver_cuda_version", r.driver_cuda_version}};
  auto gpus = nlohmann::ordered_json::array();
  for (const auto& g : r.gpus) {
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                    {"memory_total", g.mem_total},
                    {"memory_used", g.mem_used},
                    {"memory_free", g.mem_free},
                    {"utilization", g.util_gpu},
                    {"temperature_c", g.temperature_c},
                    {"power_w", g.power_w},
                    {"power_limit_w", g.power_limit_w},
                    {"kernel_support", g.kernel_support}});
  }
  j["gpus"] = gpus;
  j["host"] = {
      {"cpu_model", r.cpu_model},         {"cpu_bf16", r.cpu_bf16},           {"cpu_amp", r.cpu_amp},
      {"cpu_logical", r.cpu_logical},     {"cpu_available", r.cpu_available}, {"ram_total", r.ram_total},
      {"ram_available", r.ram_available}, {"runs_dir", r.runs_dir},           {"disk_free", r.disk_free}};
  j["warnings"] = r.warnings;
  j["problems"] = r.problems;
  j["ok"] = r.ok();
  return j.dump(2);
}

std::string doctorReportText(const DoctorReport& r) {
  std::ostringstream os;
  os << "YOLO Workbench " << r.ywb_version << " environment\n\n";
  os << "LibTorch      " << r.torch_version << "\n";
  os << "  CUDA        " << yesNo(r.torch_cuda, r.torch_cuda_runtime) << "\n";
  os << "  cuDNN       " << yesNo(r.cudnn, r.cudnn_version) << "\n";
  os << "  NCCL        " << yesNo(r.nccl) << "\n";
  os << "  MKL-DNN     " << yesNo(r.mkldnn) << "\n";
  os << "  OpenMP      " << yesNo(r.openmp) << "\n";
  os << "  BLAS        " << r.blas << "\n";
  os << "  threads     " << r.torch_threads << " intra-op (LibTorch chose " << r.torch_threads_default
     << ")\n";
  if (!r.torch_arches.empty()) {
    os << "  arches     ";
    for (const auto& a : r.torch_arches) os << " " << a;
    os << "\n";
  }
  os << "OpenCV        " << r.opencv_version << "\n";
  os << "libjpeg-turbo " << r.turbojpeg_version << "\n";
  os << "Qt            " << (r.qt_version.empty() ? "not found" : r.qt_version) << "\n\n";
  os << "NVIDIA driver "
     << (r.nvml_available ? r.driver_version + " (CUDA " + r.driver_cuda_version + ")" : "none") << "\n";
  os << "NVML          " << r.nvml_status << "\n";
  if (r.gpus.empty()) os << "GPUs          none\n";
  for (const auto& g : r.gpus) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "GPU %d         %s, sm_%d%d, %s total, %s free, %d%% busy, %d C, %.0f/%.0f W\n", g.index,
                  g.name.c_str(), g.cc_major, g.cc_minor, gib(g.mem_total).c_str(), gib(g.mem_free).c_str(),
                  g.util_gpu, g.temperature_c, g.power_w, g.power_limit_w);
    os << line << "  kernels     " << g.kernel_support << "\n";
  }
  os << "\nCPU           " << r.cpu_model << " (" << r.cpu_logical << " logical, " << r.cpu_available
     << " available)\n";
  os << "  bf16        " << r.cpu_bf16 << "\n";
  if (!r.cpu_amp.empty()) os << "  amp on CPU  " << r.cpu_amp << "\n";
  os << "RAM           " << gib(r.ram_total) << " total, " << gib(r.ram_available) << " available\n";
  os << "Disk          " << gib(r.disk_free) << " free under " << r.runs_dir << "\n";
  for (const auto& w : r.warnings) os << "\nWARNING: " << w;
  for (const auto& p : r.problems) os << "\nPROBLEM: " << p;
  if (!r.warnings.empty() || !r.problems.empty()) os << "\n";
  os << "\n"
     << (r.ok() ? "OK: nothing here would stop training." : "NOT OK: fix the problems above before training.")
     << "\n";
  return os.str();
}

}  // namespace ywb
