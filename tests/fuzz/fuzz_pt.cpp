// libFuzzer target for the .pt reader (torch-free): input starting with "PK" goes through the zip archive,
// data.pkl, the unpickler, checkpoint extraction and the storage checks; any other input is a raw pickle for
// the unpickler and extraction (the archive's CRC check would stop most mutations of a zipped pickle).
// Every input must end in a result that keeps the reader's promises or in ywb::Error; another exception,
// a crash or (under ASan/UBSan) a bad read or undefined behaviour is a finding. See tests/fuzz/README.md.
#include <cstdint>
#include <cstdlib>

#include "io/pt_archive.h"
#include "io/pt_checkpoint.h"
#include "io/unpickler.h"
#include "ywb/error.h"

namespace {

// What extraction promises: every tensor's elements lie inside its storage.
void checkTensors(const ywb::PtCheckpoint& c) {
  for (const auto& [name, t] : c.tensors) {
    if (name.empty() || ywb::pickle::dtypeSize(t.dtype) == 0) std::abort();
    if (t.sizes.size() != t.strides.size()) std::abort();
    if (t.numel() == 0) continue;
    int64_t last = t.offset;
    for (size_t d = 0; d < t.sizes.size(); ++d) last += (t.sizes[d] - 1) * t.strides[d];
    if (last >= t.storage_numel) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    if (ywb::looksLikeZip(data, size)) {
      const ywb::PtArchive archive(data, size, "fuzz.pt");
      const ywb::PtCheckpoint c = ywb::extractCheckpoint(archive.pickle(), "fuzz.pt");
      checkTensors(c);
      ywb::checkStorages(archive, c);
      unsigned sum = 0;
      for (const auto& [name, t] : c.tensors) {
        const uint64_t bytes = uint64_t(t.storage_numel) * ywb::pickle::dtypeSize(t.dtype);
        const uint8_t* p = archive.storage(t.storage_key, bytes);
        if (bytes) sum += p[0] + p[bytes - 1];  // ASan checks both ends lie in the input
      }
      if (sum == 0xFFFFFFFFu) std::abort();  // keeps the reads
    } else {
      const ywb::pickle::PickleData p = ywb::pickle::unpickle(data, size, "fuzz.pkl");
      if (!p.root) std::abort();
      checkTensors(ywb::extractCheckpoint(p, "fuzz.pkl"));
    }
  } catch (const ywb::Error&) {
    // Expected for malformed input.
  }
  return 0;
}
