// A PyTorch checkpoint archive (torch.save since PyTorch 1.6): a zip holding <name>/data.pkl (the pickled
// object), <name>/data/<key> (one entry per storage, raw little-endian elements), <name>/version and
// <name>/byteorder. Opens and checks the archive and unpickles data.pkl with the restricted unpickler.
// Torch-free. Thread rules: immutable after construction; read from any thread while the bytes live.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/pickle_value.h"
#include "io/zip_archive.h"

namespace ywb {

class PtArchive {
 public:
  /// Parses the archive in `size` bytes at `data` (not copied). Throws ywb::Error naming `source` for:
  /// not a zip (incl. PyTorch's legacy pre-1.6 format, said so), truncated, no data.pkl, a TorchScript
  /// archive (said so, with what to give instead), big-endian data, and whatever the unpickler refuses.
  PtArchive(const uint8_t* data, size_t size, const std::string& source);

  const pickle::PickleData& pickle() const { return pickle_; }
  const std::string& source() const { return zip_.source(); }
  /// Bytes held by storage `key` (data/<key>); throws ywb::Error when the entry is missing.
  uint64_t storageSize(const std::string& key) const;
  /// The bytes of storage `key`, checked to hold at least `bytes` and to match their CRC-32.
  const uint8_t* storage(const std::string& key, uint64_t bytes) const;
  /// Content of the archive's `version` record ("3"), empty when absent.
  const std::string& version() const { return version_; }

 private:
  const ZipEntry& storageEntry(const std::string& key) const;

  ZipArchive zip_;
  std::string prefix_;  ///< "<name>/"
  std::string version_;
  pickle::PickleData pickle_;
};

}  // namespace ywb
