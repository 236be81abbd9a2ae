#include "sys/nvml.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ywb {
namespace {

// The few NVML declarations we use (from NVIDIA's public nvml.h ABI); we do not need its header.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;

}  // namespace

struct Nvml::Api {
  void* handle = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*errorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driverVersion)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cudaDriverVersion)(int*) = nullptr;
  nvmlReturn_t (*deviceCount)(unsigned*) = nullptr;
  nvmlReturn_t (*handleByIndex)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*powerLimit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*computeCapability)(nvmlDevice_t, int*, int*) = nullptr;

  template <typename Fn>
  bool bind(Fn& fn, const char* symbol, const char* fallback = nullptr) {
    void* p = dlsym(handle, symbol);
    if (!p && fallback) p = dlsym(handle, fallback);
    fn = reinterpret_cast<Fn>(p);
    return p != nullptr;
  }
};

std::string Nvml::defaultLibrary() {
  const char* env = std::getenv("YWB_NVML_LIB");
  return env && *env ? env : "libnvidia-ml.so.1";
}

std::unique_ptr<Nvml> Nvml::open(const std::string& library, std::string* why) {
  auto api = std::make_unique<Api>();
  api->handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->handle) {
    const char* e = dlerror();
    if (why) *why = "cannot load " + library + " (" + (e ? e : "unknown reason") + ")";
    return nullptr;
  }
  bool ok = api->bind(api->init, "nvmlInit_v2", "nvmlInit") && api->bind(api->shutdown, "nvmlShutdown") &&
            api->bind(api->deviceCount, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount") &&
            api->bind(api->handleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  if (!ok) {
    if (why) *why = library + " lacks the NVML entry points (not an NVIDIA management library?)";
    dlclose(api->handle);
    return nullptr;
  }
  api->bind(api->errorString, "nvmlErrorString");
  api->bind(api->driverVersion, "nvmlSystemGetDriverVersion");
  api->bind(api->cudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
  api->bind(api->name, "nvmlDeviceGetName");
  api->bind(api->memory, "nvmlDeviceGetMemoryInfo");
  api->bind(api->utilization, "nvmlDeviceGetUtilizationRates");
  api->bind(api->temperature, "nvmlDeviceGetTemperature");
  api->bind(api->power, "nvmlDeviceGetPowerUsage");
  api->bind(api->powerLimit, "nvmlDeviceGetEnforcedPowerLimit");
  api->bind(api->computeCapability, "nvmlDeviceGetCudaComputeCapability");
  const nvmlReturn_t rc = api->init();
  if (rc != kNvmlSuccess) {
    if (why) {
      *why = "nvmlInit failed: " + std::string(api->errorString ? api->errorString(rc) : "error") +
             " (code " + std::to_string(rc) + "); is the NVIDIA driver loaded?";
    }
    dlclose(api->handle);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  if (api_ && api_->handle) {
    api_->shutdown();
    dlclose(api_->handle);
  }
}

std::string Nvml::driverVersion() const {
  char buf[96] = {0};
  if (api_->driverVersion && api_->driverVersion(buf, sizeof buf) == kNvmlSuccess) return buf;
  return {};
}

std::string Nvml::cudaDriverVersion() const {
  int v = 0;
  if (api_->cudaDriverVersion && api_->cudaDriverVersion(&v) == kNvmlSuccess && v > 0) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  }
  return {};
}

int Nvml::deviceCount() const {
  unsigned n = 0;
  return api_->deviceCount(&n) == kNvmlSuccess ? int(n) : 0;
}

NvmlDeviceReading Nvml::read(int index) const {
  NvmlDeviceReading r;
  r.index = index;
  nvmlDevice_t dev = nullptr;
  if (api_->handleByIndex(unsigned(index), &dev) != kNvmlSuccess) return r;
  char name[96] = {0};
  if (api_->name && api_->name(dev, name, sizeof name) == kNvmlSuccess) r.name = name;
  nvmlMemory_t mem{};
  if (api_->memory && api_->memory(dev, &mem) == kNvmlSuccess) {
    r.mem_total = int64_t(mem.total);
    r.mem_free = int64_t(mem.free);
    r.mem_used = int64_t(mem.used);
  }
  nvmlUtilization_t util{};
  if (api_->utilization && api_->utilization(dev, &util) == kNvmlSuccess) {
    r.util_gpu = int(util.gpu);
    r.util_mem = int(util.memory);
  }
  unsigned v = 0;
  if (api_->temperature && api_->temperature(dev, kNvmlTemperatureGpu, &v) == kNvmlSuccess) {
    r.temperature_c = int(v);
  }
  if (api_->power && api_->power(dev, &v) == kNvmlSuccess) r.power_w = v / 1000.0;
  if (api_->powerLimit && api_->powerLimit(dev, &v) == kNvmlSuccess) r.power_limit_w = v / 1000.0;
  int major = 0, minor = 0;
  if (api_->computeCapability && api_->computeCapability(dev, &major, &minor) == kNvmlSuccess) {
    r.cc_major = major;
    r.cc_minor = minor;
  }
  return r;
}

std::vector<NvmlDeviceReading> Nvml::readAll() const {
  std::vector<NvmlDeviceReading> all;
  const int n = deviceCount();
  for (int i = 0; i < n; ++i) all.push_back(read(i));
  return all;
}

}  // namespace ywb
