// Ultralytics datasets: data.yaml, scanning and verifying image/label pairs, and the scan report.
// Thread rules: free functions, reentrant; checkDataset() runs its own worker threads.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// A resolved Ultralytics data.yaml. Paths are absolute (or relative to the current folder when the
/// YAML's own path was); each split lists folders and/or .txt files of image paths.
struct DataConfig {
  std::string yaml;                ///< the data.yaml path as given
  std::string root;                ///< the resolved `path:` (dataset root)
  std::vector<std::string> train;  ///< folders or .txt image lists
  std::vector<std::string> val;
  std::vector<std::string> test;   ///< may be empty
  std::vector<std::string> names;  ///< class names, index = class id
};

/// Reads and resolves a data.yaml. Throws ywb::Error for a missing or broken file (with line and column),
/// a missing train/val path, or an `nc` that disagrees with `names`.
DataConfig loadDataConfig(const std::string& yaml_path);

/// One problem found while scanning: the file, the label line (0 when not about a line) and why.
struct DatasetProblem {
  std::string file;
  int line = 0;
  std::string reason;
};

/// The scan of one split. Images that are corrupt (unreadable image or an invalid label row) are excluded
/// from training, like Ultralytics does; duplicate rows are removed and the image kept.
struct SplitReport {
  std::string split;                     ///< "train", "val" or "test"
  int images = 0;                        ///< image files found
  int with_labels = 0;                   ///< usable images with at least one box
  int backgrounds = 0;                   ///< usable images without a label file or with an empty one
  int orphans = 0;                       ///< label files without an image
  int corrupt = 0;                       ///< images excluded (unreadable image or invalid label)
  int boxes = 0;                         ///< boxes in the usable images
  int duplicates_removed = 0;            ///< duplicate label rows dropped
  int rows_dropped = 0;                  ///< zero-area rows dropped (the image is kept)
  std::vector<int> per_class;            ///< box count per class id
  std::vector<DatasetProblem> problems;  ///< every problem, one per file/line
  std::string cache_path;                ///< label cache file ("" when none could be used)
  bool from_cache = false;               ///< true when the scan was read from a valid cache
  std::string cache_note;                ///< why no cache was written/used, when that happened
  double seconds = 0;                    ///< wall time of the scan
};

struct DatasetReport {
  DataConfig config;
  std::vector<SplitReport> splits;
  /// True when every split has usable images and nothing is corrupt.
  bool ok() const;
};

/// Scans and verifies every split of the dataset (in parallel; workers 0 = all CPUs). Problems in the
/// data are reported, never thrown; configuration errors (see loadDataConfig) throw ywb::Error.
DatasetReport checkDataset(const std::string& yaml, int workers = 0);

/// The report as pretty JSON (problems listed per split).
std::string datasetReportJson(const DatasetReport& report);
/// The report as human-readable text; at most `max_problems` problem lines per split (0 = all).
std::string datasetReportText(const DatasetReport& report, int max_problems = 20);

}  // namespace ywb
