#include "train/train_hooks.h"

#include <cstdlib>

#include "core/error.h"

namespace ywb {

void TrainHooks::beforeStep(int64_t images) {
  // Test hook standing in for a GPU that runs out of memory (none here): YWB_FAKE_OOM_ABOVE_BATCH=N makes
  // every step with more than N images fail like a CUDA allocation does.
  const char* limit = std::getenv("YWB_FAKE_OOM_ABOVE_BATCH");
  if (limit && images > std::atoll(limit)) {
    fail("CUDA out of memory. Tried to allocate a batch of ", images, " images (simulated by ",
         "YWB_FAKE_OOM_ABOVE_BATCH=", limit, ")");
  }
}

}  // namespace ywb
