#include "ywb/system_monitor.h"

#include <cstdlib>
#include <string>

#include "cuda/cuda_runtime.h"
#include "sys/host_info.h"
#include "sys/nvml.h"

namespace ywb {

struct SystemMonitor::Impl {
  std::unique_ptr<Nvml> nvml;
  std::string nvml_status;
  uint64_t last_busy = 0, last_total = 0;
  bool have_last = false;
};

SystemMonitor::SystemMonitor(const std::string& nvml_library) : impl_(std::make_unique<Impl>()) {
  const std::string lib = nvml_library.empty() ? Nvml::defaultLibrary() : nvml_library;
  impl_->nvml = Nvml::open(lib, &impl_->nvml_status);
}

SystemMonitor::~SystemMonitor() = default;

bool SystemMonitor::hasNvml() const {
  return impl_->nvml != nullptr;
}
std::string SystemMonitor::nvmlStatus() const {
  return impl_->nvml_status;
}

SystemSample SystemMonitor::sample() {
  SystemSample s;
  uint64_t busy = 0, total = 0;
  if (cpuTimes(&busy, &total)) {
    if (impl_->have_last && total > impl_->last_total) {
      s.cpu_percent = 100.0 * double(busy - impl_->last_busy) / double(total - impl_->last_total);
    }
    impl_->last_busy = busy;
    impl_->last_total = total;
    impl_->have_last = true;
  }
  int64_t mem_total = 0, mem_avail = 0;
  memoryInfo(&mem_total, &mem_avail);
  s.ram_total = mem_total;
  s.ram_used = mem_total - mem_avail;
  s.process_rss = processRss();
  if (impl_->nvml) {
    const auto devices = impl_->nvml->readAll();
    // NVML numbers GPUs in PCI order; CUDA fastest first and after CUDA_VISIBLE_DEVICES: the allocator's
    // figures are matched to an NVML device only where both orders agree.
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    const bool same_order =
        (!visible || !*visible) && (devices.size() == 1 || (order && std::string(order) == "PCI_BUS_ID"));
    for (const auto& d : devices) {
      GpuSample g;
      g.index = d.index;
      g.util_gpu = d.util_gpu;
      g.mem_used = d.mem_used;
      g.mem_total = d.mem_total;
      g.temperature_c = d.temperature_c;
      g.power_w = d.power_w;
      if (const auto a = same_order ? cuda::allocatorStats(d.index) : std::nullopt) {
        g.torch_reserved = a->reserved;
        g.torch_allocated = a->allocated;
      }
      s.gpus.push_back(g);
    }
  }
  return s;
}

}  // namespace ywb
