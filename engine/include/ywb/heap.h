// The process heap, for processes that start run after run (the GUI).
//
// The GUI runs on jemalloc with one arena (gui/CMakeLists.txt links it, gui/training_controller.cpp sets it);
// the CLI, one run per process, on glibc's malloc. Why (docs/RELIABILITY.md, "The GUI: five runs in one
// process"; docs/PERFORMANCE.md, "The GUI thread during a run"): every run starts new threads (trainer,
// loader workers); glibc gives them arenas of their own and keeps what they freed, so the GUI's RSS grew run
// after run (+17.7% over five runs); capping glibc at one arena kept RSS flat but made every thread share one
// malloc lock, and on 2 cores a holder that lost its CPU kept the GUI thread waiting 40-70 ms. jemalloc
// serves each thread's small allocations from a cache of its own and locks per size class, so one arena
// costs neither.
// Thread rules: every function from any thread.
#pragma once

#include <cstdint>
#include <string>

namespace ywb {

/// The malloc this process runs on.
struct HeapAllocator {
  bool jemalloc = false;  ///< jemalloc is the process's malloc (linked by the program), else glibc's
  std::string name;       ///< "jemalloc 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c" or "glibc 2.36"
  /// jemalloc's arenas for threads (opt.narenas; unless oversize_threshold is 0, blocks over 8 MiB get one
  /// more); 0 for glibc, whose arenas grow with the threads
  int arenas = 0;
};
HeapAllocator heapAllocator();

/// Hands the heap's free pages back to the system: jemalloc purges every arena's unused pages (after
/// flushing the calling thread's cache), glibc trims (malloc_trim). Without it each finished run in a
/// long-lived process (the GUI) left its peak resident: +40% RSS over five GUI runs (docs/RELIABILITY.md).
/// The trainer calls it when a run ends.
void releaseFreeHeapMemory();

/// What the heap holds, in bytes: live allocations and free memory kept by the allocator (jemalloc: resident
/// pages not allocated; glibc: mallinfo2's free bytes in its arenas, resident or not).
struct HeapUsage {
  int64_t in_use = 0;
  int64_t free_held = 0;
};
HeapUsage heapUsage();

}  // namespace ywb
