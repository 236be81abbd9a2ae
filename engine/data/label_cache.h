// The label cache: a scan of one split stored next to its labels (labels/<split>.cache, like Ultralytics),
// keyed by a hash of the file list, sizes and modification times. A stale or damaged cache is rebuilt.
// Thread rules: free functions; the cache file is written atomically, so concurrent readers are safe.
#pragma once
#include <string>
#include <vector>

#include "data/label_parser.h"

namespace ywb {

/// The verification result of one image and its label file.
struct ScanEntry {
  std::string image;
  std::string label;
  bool label_exists = false;
  int width = 0, height = 0;
  std::string image_problem;  ///< "" when the image is readable
  LabelParseResult labels;
};

struct ScanCache {
  std::string key;
  std::vector<ScanEntry> entries;
  std::vector<std::string> orphans;
};

/// Version of the cache format; bump it whenever the scan rules or the format change.
constexpr int kLabelCacheVersion = 1;

/// Hashes (path, size, mtime) of every image, label and orphan, plus nc and the cache version.
std::string labelCacheKey(const std::vector<std::string>& images, const std::vector<std::string>& labels,
                          const std::vector<std::string>& orphans, int nc);

/// Reads a cache; false (with the reason in *why) when absent, damaged, of another version or stale.
bool readLabelCache(const std::string& path, const std::string& key, ScanCache* out, std::string* why);

/// Writes the cache atomically. Throws ywb::Error.
void writeLabelCache(const std::string& path, const ScanCache& cache);

/// Whether files may be created in `dir`. Honours permission bits even for root, so read-only shared
/// datasets (mode 0555) are never written to.
bool folderWritable(const std::string& dir);

}  // namespace ywb
