// A read-only memory map of a whole file. Thread rules: immutable after construction; the bytes may be
// read from any thread while the object lives.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ywb {

class MappedFile {
 public:
  /// Maps `path` read-only; throws ywb::Error naming the path when it cannot be opened or mapped.
  /// An empty file maps to size() == 0 and data() == nullptr.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ywb
