// Creates the c10d process group of a rank (Gloo on CPU, NCCL on CUDA) where this LibTorch has it.
// Thread rules: free functions, callable from any thread.
#pragma once
#include <c10/util/intrusive_ptr.h>

#include <string>

#include "core/torch_compat.h"

namespace c10d {
class Store;
}

namespace ywb {

struct GroupRequest {
  std::string backend;  ///< "gloo" or "nccl"
  int rank = 0, world = 1;
  double timeout_s = 600;   ///< collective timeout
  std::string master_addr;  ///< picks the Gloo interface (loopback for 127.0.0.1)
  int device_index = -1;    ///< CUDA device of this rank (NCCL)
};

/// Whether this build can make a Gloo / NCCL group (headers found when the engine was compiled).
bool glooAvailable();
bool ncclAvailable();

/// Joins the group through `store`. Throws ywb::Error when the backend is not built in, naming what to do.
c10::intrusive_ptr<compat::C10dCollectives> createProcessGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                               const GroupRequest& request);

}  // namespace ywb
