// The run folder (runs/detect/<name>/): auto-incremented names, args.yaml, results.csv with Ultralytics'
// columns, weights/. Thread rules: owned by the trainer thread (rank 0 only).
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// Picks `project/name`, or the first free `project/name2`, `name3`, ... unless exist_ok. Creates it and
/// its weights/ folder. Throws ywb::Error when it cannot be created.
std::string makeRunDir(const std::string& project, const std::string& name, bool exist_ok);

/// One results.csv row.
struct ResultsRow {
  int epoch = 0;  ///< 1-based, as Ultralytics writes it
  double time = 0;
  double train_box = 0, train_cls = 0, train_dfl = 0;
  double precision = 0, recall = 0, map50 = 0, map = 0;
  double val_box = 0, val_cls = 0, val_dfl = 0;
  double lr0 = 0, lr1 = 0, lr2 = 0;
};

/// Ultralytics' header line of results.csv.
const std::vector<std::string>& resultsColumns();

/// Appends a row to `path` (writing the header first when the file is new), atomically: the whole file is
/// rewritten through a temporary file so a kill never leaves half a line.
void appendResultsRow(const std::string& path, const ResultsRow& row);

/// Reads results.csv (header checked). Throws ywb::Error for a malformed file, naming the line.
std::vector<ResultsRow> readResults(const std::string& path);

/// Drops rows with epoch > `last_epoch` (used on resume so a re-run epoch is not listed twice).
void truncateResults(const std::string& path, int last_epoch);

}  // namespace ywb
