// The run's text log: the lines a training run logs, as `ywb train` prints them into a pipe (phases, log
// lines, each epoch's final progress line under its column header, the validation lines, the summary; no
// progress-bar redraws). This file owns those lines' text, for the terminal (engine/cli/train_progress.cpp)
// and for the log file every run writes beside its results.csv (`<run>/train.log`, appended on resume; see
// engine/train/run_log.h), and reads the file back (the GUI shows it when a run is opened again).
// Thread rules: free functions on values; readRunLog reads a file and may run on any thread.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "ywb/train_events.h"

namespace ywb {

/// The log file's name in a run folder.
inline constexpr const char* kRunLogFile = "train.log";

/// "[scanning data] 16 images..." for a phase change; empty for the phases a text log leaves to the progress
/// line (training, warmup, saving).
std::string phaseLogLine(TrainPhase phase, const std::string& detail);
/// The column header printed above an epoch's progress lines ("Epoch  mem  box_loss ...").
std::string stepLogHeader();
/// One progress line of a step (the epoch, memory, losses, instances, size, images/s, bar, batches, time).
std::string stepLogLine(const StepMetrics& m);
/// The validation lines of an epoch (P, R, mAP50, mAP50-95, val loss; COCO-exact); none when the epoch was
/// not validated.
std::vector<std::string> epochLogLines(const EpochMetrics& m);
/// The summary at the end of a run (epochs, time, AMP, the best epoch's table, failed loads, skipped steps,
/// where the results are), starting with an empty line.
std::vector<std::string> finishedLogLines(const TrainSummary& s);

/// The log of the run in `run_dir`: its train.log as lines, at most the last `max_bytes` of it (a cut first
/// line is dropped). `found` tells whether the file exists. Throws ywb::Error when it exists but cannot be
/// read.
std::vector<std::string> readRunLog(const std::string& run_dir, std::size_t max_bytes, bool* found);

}  // namespace ywb
