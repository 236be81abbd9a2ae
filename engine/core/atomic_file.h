// Atomic file writing: temporary file in the same folder, flush + fsync, rename over the target.
// A crash at any moment leaves either the old file or the new one, never a torn one.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <utility>

#include "ywb/error.h"

namespace ywb {

/// What the writers below throw when the operating system refuses a write, a flush or the rename: `code` is
/// the errno (ENOSPC for a full disk, EDQUOT for a full quota, EIO...), `path` the file being written. The
/// temporary file is already removed when it is thrown.
class FileWriteError : public Error {
 public:
  FileWriteError(const std::string& message, std::string path, int code)
      : Error(message), path_(std::move(path)), code_(code) {}
  const std::string& path() const { return path_; }
  int code() const { return code_; }

 private:
  std::string path_;
  int code_;
};

/// Writes `bytes` to `path` atomically. Creates missing parent folders. Throws ywb::Error (FileWriteError
/// when a write, the flush to disk or the rename fails).
void writeFileAtomic(const std::string& path, const std::string& bytes);

/// Streams into a temporary file through `writer`, then renames it over `path` atomically.
void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// Removes what interrupted atomic writes left in `dir`: temporary files ("<name>.tmp-...") of a process
/// killed before its rename. Returns how many. Only while no other process writes in `dir`.
int removeAtomicWriteLeftovers(const std::string& dir);

/// Reads a whole file; throws ywb::Error naming the path when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace ywb
