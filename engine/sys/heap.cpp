// ywb/heap.h. jemalloc is found at run time (its mallctl, where the process's malloc is jemalloc's), so the
// engine and the CLI neither link nor need it; the GUI links it.
#include "ywb/heap.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>

#include <cstring>

namespace ywb {
namespace {

using MallctlFn = int (*)(const char*, void*, size_t*, void*, size_t);

// jemalloc's mallctl where jemalloc is the process's malloc: the library that defines the malloc every call
// binds to also defines mallctl (a jemalloc loaded later with dlopen, not serving malloc, does not count).
MallctlFn jemallocCtl() {
  static const MallctlFn fn = []() -> MallctlFn {
    void* ctl = dlsym(RTLD_DEFAULT, "mallctl");
    void* mal = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info a{}, b{};
    if (!ctl || !mal || !dladdr(ctl, &a) || !dladdr(mal, &b) || !a.dli_fname || !b.dli_fname ||
        std::strcmp(a.dli_fname, b.dli_fname) != 0)
      return nullptr;
    return reinterpret_cast<MallctlFn>(ctl);
  }();
  return fn;
}

template <class T>
bool readCtl(MallctlFn ctl, const char* name, T* out) {
  size_t len = sizeof(T);
  return ctl(name, out, &len, nullptr, 0) == 0 && len == sizeof(T);
}

// jemalloc's statistics are a snapshot refreshed by writing "epoch".
void refreshStats(MallctlFn ctl) {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  ctl("epoch", &epoch, &len, &epoch, sizeof(epoch));
}

}  // namespace

HeapAllocator heapAllocator() {
  HeapAllocator h;
  if (MallctlFn ctl = jemallocCtl()) {
    h.jemalloc = true;
    const char* version = nullptr;
    unsigned arenas = 0;
    h.name = std::string("jemalloc ") + (readCtl(ctl, "version", &version) && version ? version : "?");
    if (readCtl(ctl, "opt.narenas", &arenas)) h.arenas = int(arenas);
    return h;
  }
  h.name = std::string("glibc ") + gnu_get_libc_version();
  return h;
}

void releaseFreeHeapMemory() {
  if (MallctlFn ctl = jemallocCtl()) {
    ctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
    ctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL, every arena
    return;
  }
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

HeapUsage heapUsage() {
  HeapUsage u;
  if (MallctlFn ctl = jemallocCtl()) {
    refreshStats(ctl);
    size_t allocated = 0, resident = 0;
    if (readCtl(ctl, "stats.allocated", &allocated) && readCtl(ctl, "stats.resident", &resident)) {
      u.in_use = int64_t(allocated);
      u.free_held = resident > allocated ? int64_t(resident - allocated) : 0;
    }
    return u;
  }
#ifdef __GLIBC__
  const struct mallinfo2 mi = mallinfo2();
  u.in_use = int64_t(mi.uordblks + mi.hblkhd);
  u.free_held = int64_t(mi.fordblks);
#endif
  return u;
}

}  // namespace ywb
