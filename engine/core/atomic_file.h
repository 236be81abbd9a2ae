// Atomic file writing: temporary file in the same folder, flush + fsync, rename over the target.
// A crash at any moment leaves either the old file or the new one, never a torn one.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace ywb {

/// Writes `bytes` to `path` atomically. Creates missing parent folders. Throws ywb::Error.
void writeFileAtomic(const std::string& path, const std::string& bytes);

/// Streams into a temporary file through `writer`, then renames it over `path` atomically.
void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// Removes what interrupted atomic writes left in `dir`: temporary files ("<name>.tmp-...") of a process
/// killed before its rename. Returns how many. Only while no other process writes in `dir`.
int removeAtomicWriteLeftovers(const std::string& dir);

/// Reads a whole file; throws ywb::Error naming the path when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace ywb
