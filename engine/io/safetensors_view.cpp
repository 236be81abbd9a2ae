#include "io/safetensors_view.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.h"
#include "io/crc32.h"

namespace ywb {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kAdvice = kSafetensorsDamageAdvice;

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  fail("safetensors file '", source, "': ", what, ".", kAdvice);
}

[[noreturn]] void badTensor(const std::string& source, const std::string& name, const std::string& what) {
  fail("safetensors file '", source, "': tensor '", name, "': ", what, ".", kAdvice);
}

uint64_t readLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

std::string rangeText(const SafetensorsEntry& e) {
  std::ostringstream os;
  os << "[" << e.begin << ", " << e.end << ")";
  return os.str();
}

// Tracks the keys of every open JSON object so a repeated key (which the DOM would silently merge)
// is reported: a repeated tensor name makes the file ambiguous.
struct DuplicateKeyCheck {
  std::vector<std::set<std::string>> open;
  std::string duplicate;
  int duplicate_depth = 0;

  bool operator()(int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    if (event == E::object_start) {
      open.emplace_back();
    } else if (event == E::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == E::key && !open.empty() && parsed.is_string()) {
      if (!open.back().insert(parsed.get_ref<const std::string&>()).second && duplicate.empty()) {
        duplicate = parsed.get<std::string>();
        duplicate_depth = depth;
      }
    }
    return true;
  }
};

uint64_t unsignedField(const std::string& source, const std::string& name, const Json& v, const char* what) {
  if (!v.is_number_unsigned()) {
    badTensor(source, name, std::string(what) + " must be a non-negative integer, found " + v.dump());
  }
  return v.get<uint64_t>();
}

SafetensorsEntry parseEntry(const std::string& source, const std::string& name, const Json& info) {
  if (!info.is_object()) badTensor(source, name, "header entry is not a JSON object");
  SafetensorsEntry e;
  e.name = name;
  bool has_dtype = false, has_shape = false, has_offsets = false;
  for (auto it = info.begin(); it != info.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "dtype") {
      if (!v.is_string()) badTensor(source, name, "dtype must be a string, found " + v.dump());
      e.dtype = v.get<std::string>();
      has_dtype = true;
    } else if (key == "shape") {
      if (!v.is_array()) badTensor(source, name, "shape must be an array, found " + v.dump());
      for (const Json& d : v) {
        const uint64_t dim = unsignedField(source, name, d, "every shape dimension");
        if (dim > uint64_t(std::numeric_limits<int64_t>::max()))
          badTensor(source, name, "shape dimension too large");
        e.shape.push_back(int64_t(dim));
      }
      has_shape = true;
    } else if (key == "data_offsets") {
      if (!v.is_array() || v.size() != 2) {
        badTensor(source, name, "data_offsets must be an array [begin, end], found " + v.dump());
      }
      e.begin = unsignedField(source, name, v[0], "data_offsets begin");
      e.end = unsignedField(source, name, v[1], "data_offsets end");
      has_offsets = true;
    } else {
      badTensor(source, name, "unexpected field '" + key + "' (expected dtype, shape, data_offsets)");
    }
  }
  if (!has_dtype) badTensor(source, name, "missing dtype");
  if (!has_shape) badTensor(source, name, "missing shape");
  if (!has_offsets) badTensor(source, name, "missing data_offsets");

  const size_t elem = safetensorsDtypeSize(e.dtype);
  if (elem == 0) badTensor(source, name, "unknown dtype '" + e.dtype + "'");
  if (e.end < e.begin) badTensor(source, name, "data_offsets " + rangeText(e) + " end before begin");
  uint64_t numel = 1;
  int64_t strides = 1;  // product of max(dim, 1): LibTorch's stride arithmetic must not overflow either
  for (int64_t d : e.shape) {
    if (__builtin_mul_overflow(numel, uint64_t(d), &numel) ||
        __builtin_mul_overflow(strides, std::max<int64_t>(d, 1), &strides)) {
      badTensor(source, name, "shape " + shapeText(e.shape) + " has too many elements");
    }
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(numel, uint64_t(elem), &bytes)) {
    badTensor(source, name, "shape " + shapeText(e.shape) + " has too many bytes");
  }
  if (bytes != e.byteSize()) {
    std::ostringstream os;
    os << "shape " << shapeText(e.shape) << " of " << e.dtype << " needs " << bytes
       << " bytes but data_offsets " << rangeText(e) << " hold " << e.byteSize();
    badTensor(source, name, os.str());
  }
  return e;
}

void parseMetadata(const std::string& source, const Json& meta, SafetensorsView& view) {
  if (!meta.is_object()) bad(source, "__metadata__ must be a JSON object of strings, found " + meta.dump());
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    if (!it.value().is_string()) {
      bad(source, "__metadata__ value of '" + it.key() + "' must be a string, found " + it.value().dump());
    }
    view.metadata[it.key()] = it.value().get<std::string>();
  }
}

// The stored checksum `key` as a number; a value that is not 8 hex digits is damage too.
uint32_t storedCrc(const std::string& source, const std::map<std::string, std::string>& meta,
                   const char* key) {
  const std::string& v = meta.at(key);
  char* end = nullptr;
  const unsigned long crc = v.size() == 8 ? std::strtoul(v.c_str(), &end, 16) : 0;
  if (v.size() != 8 || end != v.c_str() + 8)
    bad(source, std::string("the metadata '") + key + "' = '" + v + "' is not a CRC-32 (8 hex digits)");
  return uint32_t(crc);
}

void addText(uint32_t& crc, const std::string& s) {
  crc = crc32Update(crc, reinterpret_cast<const uint8_t*>(s.data()), s.size() + 1);  // with its NUL
}

// Offsets must tile the data section exactly: sorted by begin, each tensor starts where the last ended.
void checkLayout(const std::string& source, SafetensorsView& view) {
  std::stable_sort(view.tensors.begin(), view.tensors.end(),
                   [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  uint64_t expected = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& e : view.tensors) {
    if (e.end > view.data_size) {
      std::ostringstream os;
      os << "data_offsets " << rangeText(e) << " reach beyond the data section of " << view.data_size
         << " bytes (file truncated?)";
      badTensor(source, e.name, os.str());
    }
    if (e.begin < expected) {
      badTensor(source, e.name,
                "data_offsets " + rangeText(e) + " overlap tensor '" + previous->name + "' " +
                    rangeText(*previous));
    }
    if (e.begin > expected) {
      std::ostringstream os;
      os << "data_offsets " << rangeText(e) << " leave a gap of " << (e.begin - expected) << " bytes after "
         << (previous ? "tensor '" + previous->name + "'" : std::string("the start of the data section"));
      badTensor(source, e.name, os.str());
    }
    expected = e.end;
    previous = &e;
  }
  if (expected != view.data_size) {
    std::ostringstream os;
    os << "the tensors cover " << expected << " of the " << view.data_size
       << " bytes in the data section (trailing bytes not described by the header)";
    bad(source, os.str());
  }
}

}  // namespace

uint32_t safetensorsHeaderChecksum(const std::map<std::string, std::string>& metadata,
                                   const std::vector<SafetensorsEntry>& tensors) {
  // Canonical encoding: "meta" NUL, then key NUL value NUL per entry (sorted), then "tensors" NUL and per
  // tensor name NUL dtype NUL shape NUL begin NUL end NUL (decimal numbers).
  uint32_t crc = 0;
  addText(crc, "meta");
  for (const auto& [k, v] : metadata) {
    if (k == kHeaderCrcKey || k == kDataCrcKey) continue;
    addText(crc, k);
    addText(crc, v);
  }
  addText(crc, "tensors");
  for (const SafetensorsEntry& e : tensors) {
    addText(crc, e.name);
    addText(crc, e.dtype);
    addText(crc, shapeText(e.shape));
    addText(crc, std::to_string(e.begin));
    addText(crc, std::to_string(e.end));
  }
  return crc;
}

std::string crc32Text(uint32_t crc) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", unsigned(crc));
  return buf;
}

uint64_t SafetensorsEntry::numel() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= uint64_t(d);
  return n;
}

size_t safetensorsDtypeSize(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"F64", 8},     {"I64", 8}, {"U64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

namespace safetensors {

SafetensorsView parse(const uint8_t* data, size_t size, const std::string& source) {
  if (size == 0) bad(source, "the file is empty");
  if (size < 8)
    bad(source, "the file has " + std::to_string(size) + " bytes, fewer than the 8-byte header length");
  const uint64_t n = readLe64(data);
  if (n > size - 8) {
    std::ostringstream os;
    os << "the header length " << n << " reaches beyond the end of the file (" << size
       << " bytes; truncated?)";
    bad(source, os.str());
  }
  if (n > kSafetensorsMaxHeader)
    bad(source, "the header length " + std::to_string(n) + " is implausibly large");
  if (n < 2 || data[8] != '{') bad(source, "the header does not start with a JSON object '{'");

  SafetensorsView view;
  view.header_json.assign(reinterpret_cast<const char*>(data + 8), size_t(n));
  view.data_offset = 8 + n;
  view.data_size = size - view.data_offset;

  // The JSON parser stops at a NUL byte as if the text ended there; the format allows only space padding.
  if (view.header_json.find('\0') != std::string::npos)
    bad(source, "the header is not valid JSON: it holds a NUL byte");

  DuplicateKeyCheck dup;
  Json header;
  try {
    header = Json::parse(view.header_json.begin(), view.header_json.end(), std::ref(dup));
  } catch (const nlohmann::json::exception& e) {
    bad(source, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!dup.duplicate.empty()) {
    if (dup.duplicate_depth == 1)
      badTensor(source, dup.duplicate, "the name appears more than once in the header");
    bad(source, "the header repeats the key '" + dup.duplicate + "'");
  }
  if (!header.is_object()) bad(source, "the header is not a JSON object");

  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      parseMetadata(source, it.value(), view);
    } else {
      view.tensors.push_back(parseEntry(source, it.key(), it.value()));
    }
  }
  checkLayout(source, view);
  if (view.metadata.count(kHeaderCrcKey)) {
    const uint32_t stored = storedCrc(source, view.metadata, kHeaderCrcKey);
    const uint32_t actual = safetensorsHeaderChecksum(view.metadata, view.tensors);
    if (stored != actual) {
      bad(source,
          "the header's checksum does not match its content (stored " + crc32Text(stored) + ", computed " +
              crc32Text(actual) +
              "): bytes of the header (tensor names, shapes or metadata) changed after it was written");
    }
  }
  return view;
}

bool verifyDataChecksum(const SafetensorsView& view, const uint8_t* data, const std::string& source) {
  if (!view.metadata.count(kDataCrcKey)) return false;
  const uint32_t stored = storedCrc(source, view.metadata, kDataCrcKey);
  const uint32_t actual = crc32Update(0, data + view.data_offset, size_t(view.data_size));
  if (stored != actual) {
    std::ostringstream os;
    os << "the tensor data's checksum does not match (stored " << crc32Text(stored) << ", computed "
       << crc32Text(actual) << " over " << view.data_size
       << " bytes): bytes of the tensor data changed after the file was written (a flipped bit, a bad disk "
          "or "
          "an incomplete copy)";
    bad(source, os.str());
  }
  return true;
}

}  // namespace safetensors
}  // namespace ywb
