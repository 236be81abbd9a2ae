// Live system readings (CPU, RAM, GPU via NVML) for charts and progress lines.
// Thread rules: one SystemMonitor per thread that samples; sample() is cheap (reads /proc and NVML).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ywb {

struct GpuSample {
  int index = 0;
  int util_gpu = -1;                      // percent
  int64_t mem_used = -1, mem_total = -1;  // bytes
  int temperature_c = -1;
  double power_w = -1;
  /// This process's CUDA caching allocator on the device (bytes): held from the driver, and used by live
  /// tensors; -1 without CUDA. The rest of mem_used is the CUDA context and other processes.
  int64_t torch_reserved = -1, torch_allocated = -1;
};

struct SystemSample {
  double cpu_percent = 0;               // all CPUs, since the previous sample (0 on the first)
  int64_t ram_used = 0, ram_total = 0;  // bytes (used = total - available)
  int64_t process_rss = 0;              // bytes
  std::vector<GpuSample> gpus;          // empty without NVML
};

class SystemMonitor {
 public:
  /// `nvml_library` empty = the default library; NVML absence is not an error.
  explicit SystemMonitor(const std::string& nvml_library = {});
  ~SystemMonitor();
  SystemMonitor(const SystemMonitor&) = delete;
  SystemMonitor& operator=(const SystemMonitor&) = delete;

  SystemSample sample();
  bool hasNvml() const;
  /// Why NVML is unavailable (empty when it is available).
  std::string nvmlStatus() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb
