#include "train/train_hooks.h"

#include <cstdlib>
#include <string>

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

bool TrainHooks::backgroundSaves(bool cuda) {
  const char* force = std::getenv("YWB_BACKGROUND_SAVES");
  return force && *force ? std::string(force) != "0" : cuda;
}

bool TrainHooks::poisonBatch() {
  // Test hook for NaN/Inf recovery: YWB_FAKE_NAN_BATCHES=6-15,30 poisons the session's training batches
  // number 6 to 15 and 30, counted from 0 over the whole session (across epochs and rollbacks).
  const int64_t n = batches_seen_++;
  const char* spec = std::getenv("YWB_FAKE_NAN_BATCHES");
  if (!spec || !*spec) return false;
  const std::string text(spec);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    const size_t dash = item.find('-');
    const long long a = std::atoll(item.substr(0, dash).c_str());
    const long long b = dash == std::string::npos ? a : std::atoll(item.substr(dash + 1).c_str());
    if (n >= a && n <= b) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace ywb
