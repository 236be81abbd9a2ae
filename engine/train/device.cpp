#include "train/device.h"

#include <torch/cuda.h>

#include <cstdlib>

#include "core/error.h"

namespace ywb {

c10::Device pickDevice(const std::string& device) {
  if (device == "cpu") return at::Device(at::kCPU);
  const bool cuda = torch::cuda::is_available();
  if (device.empty()) return cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (device.find(',') != std::string::npos) {
    fail("device=", device, ": several devices need one process per device: `ywb train` starts them, ",
         "or launch with torchrun-style variables (RANK, WORLD_SIZE, ...); in-process use takes one device");
  }
  if (!cuda) fail("device=", device, ": CUDA is not available (see `ywb doctor`); use device=cpu");
  char* end = nullptr;
  const long idx = std::strtol(device.c_str(), &end, 10);
  if (*end != '\0' || idx < 0 || idx >= long(torch::cuda::device_count())) {
    fail("device=", device, ": expected cpu or a CUDA device index below ", torch::cuda::device_count());
  }
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(idx));
}

}  // namespace ywb
