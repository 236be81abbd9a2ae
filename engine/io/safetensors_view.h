// The torch-free core of the safetensors format (https://github.com/huggingface/safetensors):
// parsing and validating a whole file held in memory. Used by the torch-side reader, the public
// inspector and the libFuzzer target. Thread rules: pure functions; call from any thread.
//
// Layout: 8 bytes little-endian u64 N, N bytes of UTF-8 JSON header, then the data section.
// The header maps tensor names to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative
// to the data section) and may hold "__metadata__": {string: string}.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ywb {

/// One tensor as described by the header; begin/end are byte offsets into the data section.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;  ///< safetensors dtype name: F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL, ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t byteSize() const { return end - begin; }
  uint64_t numel() const;
};

/// A validated view of a safetensors buffer. Entries are in data order (ascending offsets), which is
/// the header order for files written by this engine and by the reference writers.
struct SafetensorsView {
  std::string header_json;  ///< the header as stored (trailing padding spaces included)
  std::map<std::string, std::string> metadata;
  std::vector<SafetensorsEntry> tensors;
  uint64_t data_offset = 0;  ///< absolute offset of the data section: 8 + header length
  uint64_t data_size = 0;    ///< bytes in the data section
};

/// Size in bytes of one element of a safetensors dtype, or 0 when the name is not a known dtype.
size_t safetensorsDtypeSize(const std::string& dtype);

/// Metadata keys of the checksums this engine writes when asked (writeSafetensors with checksums): CRC-32s as
/// 8 lower-case hex digits, of the header's content (every metadata entry but these two, and each tensor's
/// name, dtype, shape and offsets, in a canonical encoding that does not depend on the JSON's formatting) and
/// of the data section's bytes. Files without them (other writers, older versions) load unchecked.
inline constexpr const char* kHeaderCrcKey = "ywb_header_crc32";
inline constexpr const char* kDataCrcKey = "ywb_data_crc32";

/// The header checksum of `metadata` (the two checksum keys ignored) and `tensors` (in data order).
uint32_t safetensorsHeaderChecksum(const std::map<std::string, std::string>& metadata,
                                   const std::vector<SafetensorsEntry>& tensors);

/// The 8 lower-case hex digits of a CRC-32, as stored in the metadata.
std::string crc32Text(uint32_t crc);

/// The advice closing every parse error of this file (readers of checkpoints give their own instead).
inline constexpr const char* kSafetensorsDamageAdvice =
    " The file is damaged or is not a safetensors file: export or download it again.";

/// Largest header accepted (the reference implementation's limit): larger is treated as corrupt.
constexpr uint64_t kSafetensorsMaxHeader = 100ull * 1000 * 1000;

namespace safetensors {

/// Parses and validates a complete safetensors file of `size` bytes at `data`. Checks: header length
/// within the file, UTF-8 JSON object, metadata strings, every entry's dtype, shape and offsets
/// (in range, no overlap, no gap, covering the data section exactly, byte length = numel x dtype size),
/// unique names, and the header checksum when the file has one. Throws ywb::Error naming `source`, the tensor
/// and the problem. Reads only [data, data+size).
SafetensorsView parse(const uint8_t* data, size_t size, const std::string& source = "buffer");

/// Checks the data section of a parsed file (`data` = the whole file) against its data checksum: true when it
/// matches, false when the file has none; throws ywb::Error naming `source` when it does not match.
bool verifyDataChecksum(const SafetensorsView& view, const uint8_t* data, const std::string& source);

}  // namespace safetensors
}  // namespace ywb
