#include "io/safetensors.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/torch_compat.h"
#include "io/crc32.h"
#include "io/mapped_file.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors stores little-endian data; this engine supports little-endian hosts only"
#endif

namespace ywb {
namespace {

using Json = nlohmann::ordered_json;

struct Plan {
  std::string header;  // padded JSON header
  std::vector<uint64_t> bytes;
};

// The tensor as the file stores it: contiguous, on the CPU.
at::Tensor storedForm(const at::Tensor& t) {
  return t.to(c10::kCPU).contiguous();
}

// `checksums`: add the header and data CRC-32s (safetensors_view.h). The data checksum needs a pass over the
// tensors before the header is written (one tensor at a time on the CPU, like the write itself); `data_crc`
// given skips that pass (sizes only).
Plan planFile(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata, bool checksums,
              std::optional<uint32_t> data_crc = std::nullopt) {
  Plan plan;
  std::set<std::string> names;
  std::vector<SafetensorsEntry> entries;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name.empty()) fail("cannot write safetensors: a tensor has an empty name");
    if (name == "__metadata__")
      fail("cannot write safetensors: '__metadata__' is reserved, not a tensor name");
    if (!names.insert(name).second) fail("cannot write safetensors: tensor '", name, "' appears twice");
    if (!t.defined()) fail("cannot write safetensors: tensor '", name, "' is undefined");
    if (t.layout() != c10::kStrided)
      fail("cannot write safetensors: tensor '", name, "' is not a dense tensor");
    const uint64_t bytes = uint64_t(t.numel()) * uint64_t(t.element_size());
    SafetensorsEntry e;
    e.name = name;
    e.dtype = safetensorsDtypeOf(t.scalar_type());
    e.shape = t.sizes().vec();
    e.begin = offset;
    e.end = offset + bytes;
    entries.push_back(std::move(e));
    offset += bytes;
    plan.bytes.push_back(bytes);
  }
  // Checksums of an earlier file (metadata copied from one) never pass through: they would not match.
  std::map<std::string, std::string> meta = metadata;
  meta.erase(kHeaderCrcKey);
  meta.erase(kDataCrcKey);
  if (checksums) {
    if (!data_crc) {
      uint32_t crc = 0;
      for (size_t i = 0; i < tensors.size(); ++i) {
        if (plan.bytes[i] == 0) continue;
        const at::Tensor cpu = storedForm(tensors[i].second);
        crc = crc32Update(crc, static_cast<const uint8_t*>(cpu.data_ptr()), size_t(plan.bytes[i]));
      }
      data_crc = crc;
    }
    meta[kHeaderCrcKey] = crc32Text(safetensorsHeaderChecksum(meta, entries));
    meta[kDataCrcKey] = crc32Text(*data_crc);
  }
  Json header = Json::object();
  if (!meta.empty()) {
    Json jm = Json::object();
    for (const auto& [k, v] : meta) jm[k] = v;
    header["__metadata__"] = std::move(jm);
  }
  for (const SafetensorsEntry& e : entries) {
    Json entry = Json::object();
    entry["dtype"] = e.dtype;
    entry["shape"] = e.shape;
    entry["data_offsets"] = {e.begin, e.end};
    header[e.name] = std::move(entry);
  }
  try {
    plan.header = header.dump();
  } catch (const nlohmann::json::exception& e) {
    fail("cannot write safetensors: a tensor name or metadata text is not valid UTF-8 (", e.what(), ")");
  }
  // The reference writer pads the header with spaces so the data section starts 8-byte aligned.
  while ((8 + plan.header.size()) % 8 != 0) plan.header.push_back(' ');
  return plan;
}

void writeAll(std::ostream& out, const NamedTensors& tensors, const Plan& plan) {
  uint8_t len[8];
  uint64_t n = plan.header.size();
  for (int i = 0; i < 8; ++i, n >>= 8) len[i] = uint8_t(n & 0xff);
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(plan.header.data(), std::streamsize(plan.header.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (plan.bytes[i] == 0) continue;
    // One tensor at a time on the CPU keeps the peak memory at one tensor for GPU models.
    const at::Tensor cpu = storedForm(tensors[i].second);
    out.write(static_cast<const char*>(cpu.data_ptr()), std::streamsize(plan.bytes[i]));
  }
}

void checkBoolBytes(const SafetensorsEntry& e, const uint8_t* p, const std::string& source) {
  for (uint64_t i = 0; i < e.byteSize(); ++i) {
    if (p[i] > 1) {
      fail("safetensors file '", source, "': tensor '", e.name, "': BOOL element ", i, " holds the byte ",
           int(p[i]), " (only 0 and 1 are booleans). The file is damaged: export or download it again.");
    }
  }
}

}  // namespace

const at::Tensor& SafetensorsFile::at(const std::string& name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return t;
  }
  fail("safetensors file '", source, "' has no tensor '", name, "'");
}

bool SafetensorsFile::contains(const std::string& name) const {
  for (const auto& nt : tensors) {
    if (nt.first == name) return true;
  }
  return false;
}

std::string safetensorsDtypeOf(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat:
      return "F32";
    case c10::kHalf:
      return "F16";
    case c10::kBFloat16:
      return "BF16";
    case c10::kDouble:
      return "F64";
    case c10::kLong:
      return "I64";
    case c10::kInt:
      return "I32";
    case c10::kShort:
      return "I16";
    case c10::kChar:
      return "I8";
    case c10::kByte:
      return "U8";
    case c10::kBool:
      return "BOOL";
    default:
      break;
  }
  fail("safetensors cannot hold tensors of dtype ", c10::toString(type),
       "; convert them to a real dtype first");
}

c10::ScalarType torchDtypeOf(const std::string& dtype, const std::string& tensor) {
  static const std::map<std::string, c10::ScalarType> types = {
      {"F32", c10::kFloat}, {"F16", c10::kHalf}, {"BF16", c10::kBFloat16}, {"F64", c10::kDouble},
      {"I64", c10::kLong},  {"I32", c10::kInt},  {"I16", c10::kShort},     {"I8", c10::kChar},
      {"U8", c10::kByte},   {"BOOL", c10::kBool}};
  const auto it = types.find(dtype);
  if (it == types.end()) {
    fail("tensor '", tensor, "' has dtype ", dtype, ", which LibTorch ", YWB_TORCH_VERSION_STRING,
         " cannot represent; convert the file to F32/F16/BF16 first");
  }
  return it->second;
}

std::string encodeSafetensors(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                              bool checksums) {
  const Plan plan = planFile(tensors, metadata, checksums);
  std::ostringstream out;
  writeAll(out, tensors, plan);
  return out.str();
}

uint64_t safetensorsFileSize(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                             bool checksums) {
  const Plan plan = planFile(tensors, metadata, checksums, /*data_crc=*/0u);  // fixed-width: any value sizes
  uint64_t n = 8 + plan.header.size();
  for (uint64_t b : plan.bytes) n += b;
  return n;
}

void writeSafetensors(const std::string& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata, bool checksums) {
  const Plan plan = planFile(tensors, metadata, checksums);  // validate before a file is created
  writeFileAtomic(path, [&](std::ostream& out) { writeAll(out, tensors, plan); });
}

SafetensorsFile decodeSafetensors(const uint8_t* data, size_t size, const std::string& source) {
  const SafetensorsView view = safetensors::parse(data, size, source);  // checks the header checksum
  SafetensorsFile file;
  file.checksummed = safetensors::verifyDataChecksum(view, data, source);
  file.source = source;
  file.metadata = view.metadata;
  file.tensors.reserve(view.tensors.size());
  for (const SafetensorsEntry& e : view.tensors) {
    const c10::ScalarType type = torchDtypeOf(e.dtype, e.name);
    const uint8_t* src = data + view.data_offset + e.begin;
    if (type == c10::kBool) checkBoolBytes(e, src, source);
    at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(type));
    if (e.byteSize() > 0) std::memcpy(t.data_ptr(), src, size_t(e.byteSize()));
    file.tensors.emplace_back(e.name, std::move(t));
  }
  return file;
}

SafetensorsFile readSafetensors(const std::string& path) {
  const MappedFile map(path);
  return decodeSafetensors(map.data(), map.size(), path);
}

}  // namespace ywb
