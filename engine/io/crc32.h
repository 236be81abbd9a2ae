// CRC-32 (the zip / IEEE 802.3 / zlib polynomial), slicing-by-8: about 8x faster than the byte-table loop,
// so checksumming a training checkpoint costs milliseconds (docs/RELIABILITY.md has the measurement).
// Thread rules: pure functions; call from any thread.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ywb {

/// Continues the CRC-32 `crc` (0 to start) over `size` bytes, like zlib's crc32(): crc32Update(crc32Update(0,
/// a), b) equals the CRC of a followed by b.
uint32_t crc32Update(uint32_t crc, const uint8_t* data, size_t size);

}  // namespace ywb
