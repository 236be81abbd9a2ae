// results.csv, the per-epoch table of a run folder, in Ultralytics' column names: the one writer and the one
// reader (the trainer writes it, the Runs tab and the tests read it), and the rule that picks the best epoch.
// Thread rules: free functions; a file is written by one thread (the trainer, rank 0).
#pragma once
#include <string>
#include <vector>

#include "ywb/train_events.h"

namespace ywb {

/// One results.csv row.
struct ResultsRow {
  int epoch = 0;  ///< 1-based, as Ultralytics writes it
  double time = 0;
  double train_box = 0, train_cls = 0, train_dfl = 0;
  double precision = 0, recall = 0, map50 = 0, map = 0;
  double val_box = 0, val_cls = 0, val_dfl = 0;
  double lr0 = 0, lr1 = 0, lr2 = 0;
  /// End-to-end runs (YOLO26) only: the epoch's one-to-many loss weight (EpochMetrics::o2m), in a last column
  /// `o2m` that readers of Ultralytics' columns ignore. 0: not such a run, and the file has no such column.
  double o2m = 0;
  /// Validated epochs have validation losses; an epoch trained without validation (val=false) writes 0s.
  bool validated() const { return val_box + val_cls + val_dfl > 0; }
};

/// The row the trainer writes for an epoch.
ResultsRow resultsRowOf(const EpochMetrics& m);

/// Ultralytics' header names of results.csv, in file order, then `o2m` (written for end-to-end runs only).
const std::vector<std::string>& resultsColumns();
/// A row's values in resultsColumns() order (for tables and charts that pick a column by name).
std::vector<double> resultsRowValues(const ResultsRow& r);

/// Appends a row to `path` (writing the header first when the file is new), atomically: the whole file is
/// rewritten through a temporary file so a kill never leaves half a line.
void appendResultsRow(const std::string& path, const ResultsRow& row);

/// Reads results.csv. Columns are matched by name (Ultralytics pads names with spaces and may add columns;
/// a missing column reads 0, but `epoch` is required). Throws ywb::Error for a malformed file, naming the
/// line.
std::vector<ResultsRow> readResults(const std::string& path);

/// Drops rows with epoch > `last_epoch` (used on resume so a re-run epoch is not listed twice).
void truncateResults(const std::string& path, int last_epoch);

/// Index of the row whose weights the trainer kept in best: the first validated row of highest
/// modelFitness() (ywb/metrics.h), or -1 when no row was validated.
int bestResultsRow(const std::vector<ResultsRow>& rows);

}  // namespace ywb
