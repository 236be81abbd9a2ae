#include "core/threads.h"

#include "core/host_allocator.h"

#include <ATen/Parallel.h>
#include <sched.h>

#include <thread>

namespace ywb {

int availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc > 0 ? int(hc) : 1;
}

int configureTorchThreads(int requested) {
  tuneHostAllocator();  // every compute path configures threads first
  const int n = requested > 0 ? requested : availableCpus();
  if (at::get_num_threads() != n) at::set_num_threads(n);
  return at::get_num_threads();
}

}  // namespace ywb
