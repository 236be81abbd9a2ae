// NVML (NVIDIA Management Library) loaded at run time with dlopen, so the program starts on machines
// without an NVIDIA driver and says so. Thread rules: NVML itself is thread-safe; one Nvml object may be
// queried from several threads, but open/close happen once.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ywb {

/// One device's readings. Values NVML could not give are -1.
struct NvmlDeviceReading {
  int index = 0;
  std::string name;
  int cc_major = -1, cc_minor = -1;
  int64_t mem_total = -1, mem_used = -1, mem_free = -1;  // bytes
  int util_gpu = -1, util_mem = -1;                      // percent
  int temperature_c = -1;
  double power_w = -1, power_limit_w = -1;
};

class Nvml {
 public:
  /// The library name the driver installs; YWB_NVML_LIB in the environment overrides it.
  static std::string defaultLibrary();
  /// Loads and initialises NVML from `library`. Returns nullptr and fills `why` when unavailable.
  static std::unique_ptr<Nvml> open(const std::string& library, std::string* why);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::string driverVersion() const;
  /// CUDA version the driver supports, e.g. "12.4"; empty when unknown.
  std::string cudaDriverVersion() const;
  int deviceCount() const;
  NvmlDeviceReading read(int index) const;
  std::vector<NvmlDeviceReading> readAll() const;

 private:
  struct Api;
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

}  // namespace ywb
