// The label cache: a scan of one split stored next to its labels under a name of its own
// (labels/<split>.ywb-cache; Ultralytics reads labels/<split>.cache as a numpy pickle, so that name is never
// written), keyed by a hash of the file list, sizes and modification times. A stale or damaged cache is
// rebuilt.
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
constexpr int kLabelCacheVersion = 2;  // 2: boxes kept as written within kLabelTextRounding

/// Hashes (path, size, mtime) of every image, label and orphan, plus nc and the cache version.
std::string labelCacheKey(const std::vector<std::string>& images, const std::vector<std::string>& labels,
                          const std::vector<std::string>& orphans, int nc);

/// Reads a cache; false (with the reason in *why) when absent, damaged, of another version or stale.
bool readLabelCache(const std::string& path, const std::string& key, ScanCache* out, std::string* why);

/// Writes the cache atomically. Throws ywb::Error.
void writeLabelCache(const std::string& path, const ScanCache& cache);

/// Where the label cache of a split lives: `<label folder>.ywb-cache` beside the folder of `first_label`
/// (labels/val/a.txt -> labels/val.ywb-cache).
std::string labelCachePath(const std::string& first_label);

/// The cache Ultralytics reads and writes for the same split: `<label folder>.cache` (a numpy pickle).
std::string ultralyticsCachePath(const std::string& first_label);

/// Removes `path` when it is a label cache in our format (written there by versions before 0.x used
/// Ultralytics' name; Ultralytics fails to unpickle it). Ultralytics' own caches and other files are left
/// alone. True when a file was removed.
bool removeOwnCacheAt(const std::string& path);

/// Whether files may be created in `dir`. Honours permission bits even for root, so read-only shared
/// datasets (mode 0555) are never written to.
bool folderWritable(const std::string& dir);

}  // namespace ywb
