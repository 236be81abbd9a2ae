// libFuzzer target for the safetensors parser core (torch-free). Every input must either parse into a
// view that satisfies the format's invariants or raise ywb::Error; anything else (another exception,
// a crash, a read past the buffer under ASan) is a finding. Build and run: see tests/fuzz/README.md.
#include <cstdint>
#include <cstdlib>

#include "io/safetensors_view.h"
#include "ywb/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ywb::SafetensorsView v = ywb::safetensors::parse(data, size, "fuzz");
    // Invariants promised by parse(): entries tile the data section exactly, lengths match shapes.
    uint64_t expected = 0;
    for (const ywb::SafetensorsEntry& e : v.tensors) {
      if (e.begin != expected || e.end > v.data_size) std::abort();
      if (e.numel() * ywb::safetensorsDtypeSize(e.dtype) != e.byteSize()) std::abort();
      expected = e.end;
    }
    if (expected != v.data_size || v.data_offset + v.data_size != size) std::abort();
  } catch (const ywb::Error&) {
    // Expected for malformed input.
  }
  return 0;
}
