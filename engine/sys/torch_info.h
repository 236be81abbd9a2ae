// What the linked LibTorch was built with, parsed from at::show_config(), and CUDA device probes.
// Thread rules: free functions; probeCudaDevice may block up to its timeout.
#pragma once
#include <string>
#include <vector>

namespace ywb {

struct TorchBuildInfo {
  std::string version;
  bool cuda = false;
  std::string cuda_runtime;
  bool cudnn = false;
  std::string cudnn_version;
  bool nccl = false;
  bool mkldnn = false;
  bool openmp = false;
  std::string blas_info;
  std::vector<std::string> arches;  // "sm_90", "compute_90", ...
};

/// Parses the text of at::show_config() (exposed for tests with recorded configs).
TorchBuildInfo parseTorchConfig(const std::string& show_config);
/// Build info of the LibTorch this program runs on.
TorchBuildInfo torchBuildInfo();
/// Number of CUDA devices LibTorch sees (0 without CUDA).
int torchCudaDeviceCount();
/// Runs a small computation on CUDA device `index`; returns an empty string on success or the error.
std::string probeCudaDevice(int index, double timeout_s);
/// Which BLAS shared library is mapped into this process: "openblas-pthread", "openblas", "mkl",
/// "blis", "reference" or "unknown".
std::string loadedBlas();

}  // namespace ywb
