#include "sys/torch_info.h"

#include <ATen/ATen.h>
#include <ATen/Context.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>

#include "core/error.h"
#include "core/torch_compat.h"

namespace ywb {
namespace {

bool flagOn(const std::string& cfg, const std::string& key) {
  std::regex re(key + "=(ON|1|TRUE)\\b");
  return std::regex_search(cfg, re);
}

std::string capture(const std::string& cfg, const std::string& pattern) {
  std::smatch m;
  std::regex re(pattern);
  return std::regex_search(cfg, m, re) ? m[1].str() : std::string();
}

// LibTorch prints cuDNN's version number v as "v/1000.(v%1000)/100[.v%100]", the encoding of cuDNN <= 8
// (8902 -> "8.9.2"). cuDNN 9 encodes major*10000 + minor*100 + patch, so 9.19.0 (91900) prints as "91.9"
// (seen on PyTorch 2.11 cu130): a first number >= 10 is undone to "9.19".
std::string cudnnVersionText(const std::string& printed) {
  const size_t dot = printed.find('.');
  if (dot == std::string::npos) return printed;
  const int first = std::atoi(printed.substr(0, dot).c_str());
  if (first < 10) return printed;
  const int second = std::atoi(printed.substr(dot + 1).c_str());
  const long v = long(first) * 1000 + long(second % 10) * 100;
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100);
}

}  // namespace

TorchBuildInfo parseTorchConfig(const std::string& cfg) {
  TorchBuildInfo info;
  info.version = capture(cfg, "TORCH_VERSION=([0-9][0-9A-Za-z.+_-]*)");
  info.cuda = flagOn(cfg, "USE_CUDA");
  info.cuda_runtime = capture(cfg, "CUDA Runtime ([0-9.]+)");
  info.cudnn = flagOn(cfg, "USE_CUDNN");
  info.cudnn_version = cudnnVersionText(capture(cfg, "CuDNN ([0-9.]+)"));
  info.nccl = flagOn(cfg, "USE_NCCL");
  info.mkldnn = flagOn(cfg, "USE_MKLDNN");
  info.openmp = flagOn(cfg, "USE_OPENMP");
  info.blas_info = capture(cfg, "BLAS_INFO=([A-Za-z0-9_]+)");
  const std::string flags = capture(cfg, "NVCC architecture flags: ([^\\n]*)");
  std::regex arch_re("code=\\[?((sm|compute)_[0-9]+[a-z]?)(,((sm|compute)_[0-9]+[a-z]?))?");
  for (auto it = std::sregex_iterator(flags.begin(), flags.end(), arch_re); it != std::sregex_iterator();
       ++it) {
    for (int g : {1, 4}) {
      const std::string a = (*it)[g].str();
      if (!a.empty() && std::find(info.arches.begin(), info.arches.end(), a) == info.arches.end()) {
        info.arches.push_back(a);
      }
    }
  }
  return info;
}

TorchBuildInfo torchBuildInfo() {
  TorchBuildInfo info = parseTorchConfig(at::show_config());
  if (info.version.empty()) info.version = YWB_TORCH_VERSION_STRING;
  return info;
}

int torchCudaDeviceCount() {
  try {
    return at::hasCUDA() ? int(at::detail::getCUDAHooks().getNumGPUs()) : 0;
  } catch (...) {
    return 0;
  }
}

std::string probeCudaDevice(int index, double timeout_s) {
  // A LibTorch without SASS for this GPU either fails ("no kernel image") or JIT-compiles PTX for a
  // long time; the probe runs on a detached thread so a hang is reported, not inherited.
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::string error;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, index] {
    std::string err;
    try {
      auto dev = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
      auto a = at::ones({64, 64}, at::TensorOptions().device(dev));
      auto b = (a.matmul(a) + 1).sum().item<float>();
      if (b != 64.0f * 64 * 64 + 64 * 64) err = "wrong result from a test matmul on the GPU";
    } catch (...) {
      err = describeCurrentException();
    }
    std::lock_guard<std::mutex> lock(shared->m);
    shared->error = err;
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->m);
  if (!shared->cv.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return shared->done; })) {
    return "a test kernel did not finish within " + std::to_string(int(timeout_s)) +
           " s (PTX JIT compilation for an architecture this LibTorch lacks?)";
  }
  return shared->error;
}

std::string loadedBlas() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::string found = "unknown";
  while (std::getline(maps, line)) {
    if (line.find("openblas-pthread") != std::string::npos) return "openblas-pthread";
    if (line.find("libopenblas") != std::string::npos)
      found = "openblas";
    else if (line.find("libmkl") != std::string::npos)
      found = "mkl";
    else if (line.find("libblis") != std::string::npos && found == "unknown")
      found = "blis";
    else if (line.find("/blas/libblas.so") != std::string::npos && found == "unknown")
      found = "reference";
  }
  return found;
}

}  // namespace ywb
