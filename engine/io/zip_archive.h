// A read-only view of a zip archive held in memory, as PyTorch writes them (torch.save since 1.6:
// every entry stored uncompressed, data aligned by padding in the local header's extra field, zip64
// records for large files). Torch-free so the fuzzer can drive it cheaply.
//
// Why our own reader and not LibTorch's PyTorchStreamReader or libzip/minizip: hostile input must never
// crash, and this reader is ~200 lines of bounds-checked arithmetic over the engine's MappedFile that the
// libFuzzer target covers together with the unpickler (fuzz_pt). PyTorchStreamReader reports problems as
// c10::Error with backtraces, reads through miniz, and cannot be fuzzed without all of LibTorch; libzip
// would add a dependency for the one feature (stored entries) we need.
//
// Thread rules: immutable after construction; read from any thread while the underlying bytes live.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ywb {

/// One member of the archive: its bytes lie at [offset, offset + size) of the buffer.
struct ZipEntry {
  std::string name;
  uint64_t offset = 0;  ///< absolute offset of the stored bytes in the buffer
  uint64_t size = 0;    ///< bytes stored (= uncompressed size; only method 0 "stored" is accepted)
  uint32_t crc32 = 0;   ///< CRC-32 from the central directory
  uint16_t method = 0;  ///< compression method (0 = stored)
};

class ZipArchive {
 public:
  /// Parses the central directory of the `size` bytes at `data` (not copied: they must outlive the
  /// object). Throws ywb::Error naming `source` when the bytes are not a zip archive, are truncated,
  /// or an entry lies outside the buffer. Compressed entries are listed (their bytes are refused later).
  ZipArchive(const uint8_t* data, size_t size, std::string source);

  /// All entries by name.
  const std::map<std::string, ZipEntry>& entries() const { return entries_; }
  /// The entry called `name`, or nullptr.
  const ZipEntry* find(const std::string& name) const;
  /// The stored bytes of `e`; throws ywb::Error when it is compressed or (check_crc) its CRC-32 differs.
  const uint8_t* bytes(const ZipEntry& e, bool check_crc = true) const;
  const std::string& source() const { return source_; }

 private:
  const uint8_t* data_;
  size_t size_;
  std::string source_;
  std::map<std::string, ZipEntry> entries_;
};

/// Whether the bytes start like a zip archive ("PK\3\4", or "PK\5\6" for an empty one).
bool looksLikeZip(const uint8_t* data, size_t size);

/// CRC-32 (zip / IEEE 802.3) of `size` bytes.
uint32_t crc32Of(const uint8_t* data, size_t size);

}  // namespace ywb
