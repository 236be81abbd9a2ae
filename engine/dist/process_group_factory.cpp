// Gloo and NCCL process groups. This file is compiled without the engine's precompiled header and with
// YW_HAVE_C10D_GLOO / YW_HAVE_C10D_NCCL set to 1 only when their headers exist (engine/dist/CMakeLists.txt;
// not LibTorch's own USE_C10D_*, which say how LibTorch was built: pip's CUDA LibTorch defines USE_C10D_GLOO
// but ships no Gloo headers):
// Debian's LibTorch ships the c10d headers but Gloo's live in libgloo-dev, and NCCL only comes with CUDA.
#include "dist/process_group_factory.h"

#include <chrono>
#include <cstdlib>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "core/error.h"

#if YW_HAVE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if YW_HAVE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace ywb {

bool glooAvailable() {
#if YW_HAVE_C10D_GLOO
  return true;
#else
  return false;
#endif
}

bool ncclAvailable() {
#if YW_HAVE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

c10::intrusive_ptr<compat::C10dCollectives> createProcessGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                               const GroupRequest& r) {
  const auto timeout = std::chrono::milliseconds(int64_t(r.timeout_s * 1000.0));
  if (r.backend == "gloo") {
#if YW_HAVE_C10D_GLOO
    auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    } else if (r.master_addr == "127.0.0.1" || r.master_addr == "localhost") {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    opts->threads = 2;
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, r.rank, r.world, opts);
#else
    fail("this build of the engine has no Gloo backend (Gloo's headers were missing when it was compiled: ",
         "install libgloo-dev and rebuild), so CPU distributed training is unavailable");
#endif
  }
  if (r.backend == "nccl") {
#if YW_HAVE_C10D_NCCL
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, r.rank, r.world, opts);
#else
    fail("this build of the engine has no NCCL backend (it needs a CUDA LibTorch and nccl.h at build time); ",
         "use device=cpu for Gloo ranks");
#endif
  }
  fail("unknown distributed backend '", r.backend, "' (gloo or nccl)");
}

}  // namespace ywb
