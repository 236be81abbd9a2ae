// The run's log file: a TrainObserver in front of the caller's that writes what the run logs into
// <run>/train.log (the text of ywb/train_log.h: what `ywb train` prints into a pipe) and passes every event
// on. The trainer puts it in front of every run, so runs from the CLI and from the GUI both leave their log.
// Each event's lines go to the file in one append as it happens: a killed run leaves every line written
// before; a resumed run appends under a line that says so. A log that cannot be written is said once in the
// run's log lines and the run goes on without it.
// Thread rules: the trainer thread (rank 0), like every TrainObserver.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "ywb/train_events.h"

namespace ywb {

class RunLog : public TrainObserver {
 public:
  /// Events go on to `next` (may be nullptr).
  explicit RunLog(TrainObserver* next) : next_(next) {}
  ~RunLog() override;
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  /// Starts appending to `run_dir`/train.log: a line `header`, then the lines logged so far. Until then lines
  /// are kept (what a run says before its folder exists); a run that never gets a folder writes none.
  void open(const std::string& run_dir, const std::string& header);
  /// The file written ("" before open()).
  const std::string& path() const { return path_; }

  void onPhase(TrainPhase phase, const std::string& detail) override;
  void onStep(const StepMetrics& m) override;
  void onEpoch(const EpochMetrics& m) override;
  void onLog(const std::string& line) override;
  void onFinished(const TrainSummary& s) override;

 private:
  void write(const std::vector<std::string>& lines);

  TrainObserver* next_;
  std::FILE* file_ = nullptr;
  std::string path_;
  std::vector<std::string> pending_;  // lines before open()
  bool failed_ = false;
  int header_epoch_ = -1;  // the epoch whose column header was written last
};

/// The line a session of a run starts with in its log: the local time, the version and `what` ("training
/// started", "resumed at epoch 3").
std::string runLogSessionHeader(const std::string& what);

}  // namespace ywb
