// Host (CPU) memory allocator settings for tensor workloads.
//
// LibTorch's CPU allocator takes every tensor from glibc malloc. With glibc's defaults each activation above
// the dynamic mmap threshold is a fresh mmap (and its pages are zero-filled by the kernel on first touch)
// and is unmapped again when freed, so every training step pays page faults for all its large
// activations. Measured on 2 cores (docs/PERFORMANCE.md, "Host allocator"): YOLOv8n forward at imgsz 640
// batch 8 took 526 ms with the defaults and 338 ms with large tensors kept in the heap, peak RSS +5%.
#pragma once

#include <string>

namespace ywb {

/// Keeps freed tensor memory in the process for reuse instead of returning it to the kernel after every
/// step (glibc: no mmap for large blocks, no heap trimming; jemalloc, the GUI's, does so by itself). Applied
/// once per process; the environment variable YWB_MALLOC=default leaves glibc's defaults. Returns a one-line
/// description of what is in effect.
std::string tuneHostAllocator();

}  // namespace ywb
