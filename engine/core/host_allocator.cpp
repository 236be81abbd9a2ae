#include "core/host_allocator.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ywb/heap.h"

namespace ywb {

std::string tuneHostAllocator() {
  static std::once_flag once;
  static std::string state;
  std::call_once(once, [] {
    const char* env = std::getenv("YWB_MALLOC");
    if (env && std::strcmp(env, "default") == 0) {
      state = "glibc defaults (YWB_MALLOC=default)";
      return;
    }
    // jemalloc is the GUI's, and the GUI sets the same policy there (gui/training_controller.cpp's
    // malloc_conf: no time-based purge, freed pages kept until the end of a run); glibc's settings below
    // would tune an allocator nothing uses.
    const HeapAllocator heap = heapAllocator();
    if (heap.jemalloc) {
      state = heap.name + ", " + std::to_string(heap.arenas) + " arena(s), freed tensors kept for reuse";
      return;
    }
#ifdef __GLIBC__
    // Large blocks from the heap instead of per-allocation mmap; never trim the heap top.
    const bool ok = mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
    state = ok ? "glibc, tensors kept for reuse (no mmap per block, no trimming)"
               : "glibc defaults (mallopt refused the settings)";
#else
    state = "platform default";
#endif
  });
  return state;
}

}  // namespace ywb
