#include "io/zip_archive.h"

#include <array>
#include <utility>

#include "core/error.h"
#include "io/crc32.h"

namespace ywb {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr size_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30, kLocator64Size = 20, kEnd64Size = 56;

uint16_t u16(const uint8_t* p) {
  return uint16_t(p[0] | (p[1] << 8));
}
uint32_t u32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
uint64_t u64(const uint8_t* p) {
  return uint64_t(u32(p)) | (uint64_t(u32(p + 4)) << 32);
}

// Whether [offset, offset + len) lies inside a buffer of `size` bytes (overflow-safe).
bool inside(uint64_t offset, uint64_t len, size_t size) {
  return offset <= size && len <= size - offset;
}

}  // namespace

uint32_t crc32Of(const uint8_t* data, size_t size) {
  return crc32Update(0, data, size);
}

bool looksLikeZip(const uint8_t* data, size_t size) {
  return size >= 4 && data[0] == 'P' && data[1] == 'K' &&
         ((data[2] == 3 && data[3] == 4) || (data[2] == 5 && data[3] == 6));
}

ZipArchive::ZipArchive(const uint8_t* data, size_t size, std::string source)
    : data_(data), size_(size), source_(std::move(source)) {
  const std::string& src = source_;
  if (!looksLikeZip(data, size)) fail(src, ": not a zip archive (no 'PK' signature at the start)");
  if (size < kEndSize) fail(src, ": truncated zip archive (", size, " bytes)");
  // The end-of-central-directory record sits in the last 22 + up to 65535 (comment) bytes.
  size_t end = size;  // offset of the record; size = not found
  const size_t lowest = size - kEndSize > 65535 ? size - kEndSize - 65535 : 0;
  for (size_t i = size - kEndSize + 1; i-- > lowest;) {
    if (u32(data + i) == kEndSig) {
      end = i;
      break;
    }
  }
  if (end == size)
    fail(src,
         ": truncated or damaged zip archive (no end-of-directory record); the file was not fully"
         " written or copied");
  uint64_t count = u16(data + end + 10);
  uint64_t cd_size = u32(data + end + 12);
  uint64_t cd_offset = u32(data + end + 16);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu) {
    if (end < kLocator64Size || u32(data + end - kLocator64Size) != kLocator64Sig)
      fail(src, ": damaged zip64 archive (no zip64 locator before the end record)");
    const uint64_t end64 = u64(data + end - kLocator64Size + 8);
    if (!inside(end64, kEnd64Size, size) || u32(data + end64) != kEnd64Sig)
      fail(src, ": damaged zip64 archive (zip64 end record outside the file)");
    count = u64(data + end64 + 32);
    cd_size = u64(data + end64 + 40);
    cd_offset = u64(data + end64 + 48);
  }
  if (!inside(cd_offset, cd_size, size))
    fail(src, ": truncated zip archive (its directory lies outside the file's ", size, " bytes)");
  if (count > cd_size / kCentralSize) fail(src, ": damaged zip directory (", count, " entries cannot fit)");
  uint64_t p = cd_offset;
  const uint64_t cd_end = cd_offset + cd_size;
  for (uint64_t n = 0; n < count; ++n) {
    if (cd_end - p < kCentralSize || u32(data + p) != kCentralSig)
      fail(src, ": damaged zip directory at entry ", n);
    const uint8_t* c = data + p;
    const uint16_t flags = u16(c + 8);
    ZipEntry e;
    e.method = u16(c + 10);
    e.crc32 = u32(c + 16);
    uint64_t comp = u32(c + 20), uncomp = u32(c + 24), local = u32(c + 42);
    const uint64_t name_len = u16(c + 28), extra_len = u16(c + 30), comment_len = u16(c + 32);
    if (cd_end - p - kCentralSize < name_len + extra_len + comment_len)
      fail(src, ": damaged zip directory at entry ", n, " (name or extra field runs past it)");
    e.name.assign(reinterpret_cast<const char*>(c + kCentralSize), name_len);
    // zip64 extended information: 64-bit values for the fields stored as 0xFFFFFFFF, in this order.
    const uint8_t* x = c + kCentralSize + name_len;
    for (uint64_t k = 0; k + 4 <= extra_len;) {
      const uint16_t id = u16(x + k), len = u16(x + k + 2);
      if (k + 4 + len > extra_len) break;
      if (id == 0x0001) {
        const uint8_t* v = x + k + 4;
        uint64_t left = len;
        for (uint64_t* field : {&uncomp, &comp, &local}) {
          if (*field != 0xFFFFFFFFu) continue;
          if (left < 8) fail(src, ": damaged zip64 field of entry '", e.name, "'");
          *field = u64(v);
          v += 8;
          left -= 8;
        }
      }
      k += 4 + uint64_t(len);
    }
    p += kCentralSize + name_len + extra_len + comment_len;
    if (flags & 1) fail(src, ": entry '", e.name, "' is encrypted");
    if (e.method == 0 && comp != uncomp)
      fail(src, ": damaged entry '", e.name, "' (stored with ", comp, " bytes but ", uncomp,
           " uncompressed)");
    if (!inside(local, kLocalSize, size) || u32(data + local) != kLocalSig)
      fail(src, ": truncated or damaged zip archive (entry '", e.name, "' has no local header)");
    const uint64_t data_at = local + kLocalSize + u16(data + local + 26) + u16(data + local + 28);
    if (!inside(data_at, comp, size))
      fail(src, ": truncated zip archive (entry '", e.name, "' needs bytes up to ", data_at + comp,
           ", the file has ", size, ")");
    e.offset = data_at;
    e.size = comp;
    if (!entries_.emplace(e.name, e).second) fail(src, ": zip archive lists '", e.name, "' twice");
  }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

const uint8_t* ZipArchive::bytes(const ZipEntry& e, bool check_crc) const {
  if (e.method != 0)
    fail(source_, ": entry '", e.name, "' is compressed (method ", e.method,
         "); PyTorch stores entries uncompressed: re-save the file with torch.save instead of re-zipping it");
  if (!inside(e.offset, e.size, size_)) fail(source_, ": entry '", e.name, "' lies outside the archive");
  const uint8_t* p = data_ + e.offset;
  if (check_crc && crc32Of(p, size_t(e.size)) != e.crc32)
    fail(source_, ": entry '", e.name,
         "' is damaged (CRC-32 mismatch); the file was changed or badly copied");
  return p;
}

}  // namespace ywb
