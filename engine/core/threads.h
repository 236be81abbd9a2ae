// LibTorch thread configuration. Debian's LibTorch starts with one intra-op thread on these machines
// (GUIDE 7), which made training 7x slower; the engine sets the count explicitly from the hardware.
#pragma once

namespace ywb {

/// Number of logical CPUs available to this process (affinity-aware), at least 1.
int availableCpus();

/// Sets LibTorch's intra-op thread count (0 = all available CPUs) and returns the count in effect. Also
/// applies the host allocator settings (core/host_allocator.h) the first time.
int configureTorchThreads(int requested = 0);

}  // namespace ywb
