// The fuzz targets' stand-in for engine/core/error.cpp (which needs LibTorch for c10::Error). ywb::guarded()
// calls it to turn a stray exception into ywb::Error at an API boundary; under the fuzzer a stray exception
// is exactly what we look for, so it is reported as a finding instead of being wrapped.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/error.h"

namespace ywb {

std::string describeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: a non-ywb exception reached an API boundary: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "finding: an unknown exception reached an API boundary\n");
  }
  std::abort();
}

}  // namespace ywb
