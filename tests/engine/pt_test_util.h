// Builders for the .pt reader tests: pickle bytes written opcode by opcode, and a minimal zip writer that
// lays out an archive the way torch.save does (stored entries under "<name>/").
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "io/zip_archive.h"

namespace pt_test {

/// Pickle bytes, appended opcode by opcode (each call site comments what it writes).
struct Pkl {
  std::string b;
  Pkl& raw(std::initializer_list<int> bytes) {
    for (int x : bytes) b.push_back(char(uint8_t(x)));
    return *this;
  }
  Pkl& u32(uint32_t v) {
    for (int k = 0; k < 4; ++k) b.push_back(char((v >> (8 * k)) & 0xFF));
    return *this;
  }
  /// BINUNICODE: 'X', u32 length, UTF-8 bytes.
  Pkl& str(const std::string& s) {
    b.push_back('X');
    u32(uint32_t(s.size()));
    b += s;
    return *this;
  }
  /// GLOBAL: 'c', "module\n", "name\n".
  Pkl& global(const std::string& module, const std::string& name) {
    b += "c" + module + "\n" + name + "\n";
    return *this;
  }
  /// BININT1 (0..255) or BININT (4 bytes signed).
  Pkl& integer(int64_t v) {
    if (v >= 0 && v < 256) return raw({'K', int(v)});
    b.push_back('J');
    return u32(uint32_t(int32_t(v)));
  }
};

/// A zip archive of stored entries in the given order (what torch.save writes, without alignment padding).
inline std::string zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  auto le = [](std::string& out, uint64_t v, int n) {
    for (int k = 0; k < n; ++k) out.push_back(char((v >> (8 * k)) & 0xFF));
  };
  std::string out, cd;
  for (const auto& [name, data] : entries) {
    const uint32_t crc = ywb::crc32Of(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    const uint64_t local = out.size();
    le(out, 0x04034b50, 4), le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 4);
    le(out, crc, 4), le(out, data.size(), 4), le(out, data.size(), 4), le(out, name.size(), 2), le(out, 0, 2);
    out += name + data;
    le(cd, 0x02014b50, 4), le(cd, 20, 2), le(cd, 20, 2), le(cd, 0, 2), le(cd, 0, 2), le(cd, 0, 4);
    le(cd, crc, 4), le(cd, data.size(), 4), le(cd, data.size(), 4), le(cd, name.size(), 2);
    le(cd, 0, 2), le(cd, 0, 2), le(cd, 0, 2), le(cd, 0, 2), le(cd, 0, 4), le(cd, local, 4);
    cd += name;
  }
  const uint64_t cd_at = out.size();
  out += cd;
  le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2), le(out, entries.size(), 2),
      le(out, entries.size(), 2);
  le(out, cd.size(), 4), le(out, cd_at, 4), le(out, 0, 2);
  return out;
}

}  // namespace pt_test
