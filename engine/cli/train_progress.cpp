#include "cli/train_progress.h"

#include <unistd.h>

#include <iostream>

#include "ywb/run_record.h"
#include "ywb/train_log.h"

namespace ywb::cli {
namespace {

void emit(const std::string& event_line) {
  std::cout << event_line << std::endl;
}

void print(const std::vector<std::string>& lines) {
  for (const auto& l : lines) std::cout << l << "\n";
  std::cout.flush();
}

}  // namespace

// The lines' text is the run log's (ywb/train_log.h): the terminal and <run>/train.log read the same.
TrainProgress::TrainProgress(bool json) : json_(json), tty_(::isatty(STDOUT_FILENO) != 0) {}

void TrainProgress::endBar() {
  if (bar_open_) std::cout << "\n";
  bar_open_ = false;
}

void TrainProgress::onPhase(TrainPhase phase, const std::string& detail) {
  if (json_) return emit(phaseEventJson(phase, detail));
  const std::string line = phaseLogLine(phase, detail);
  if (line.empty()) return;
  endBar();
  std::cout << line << std::endl;
}

void TrainProgress::onLog(const std::string& line) {
  if (json_) return emit(logEventJson(line));
  endBar();
  std::cout << line << std::endl;
}

void TrainProgress::onStep(const StepMetrics& m) {
  if (json_) return emit(stepEventJson(m));
  const bool last = m.batch + 1 == m.batches;
  const auto now = std::chrono::steady_clock::now();
  if (!last && !tty_) return;  // pipes and logs get one line per epoch
  if (!last && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  if (header_epoch_ != m.epoch) {
    endBar();
    std::cout << "\n" << stepLogHeader() << "\n";
    header_epoch_ = m.epoch;
  }
  std::cout << (tty_ ? "\r" : "") << stepLogLine(m);
  std::cout.flush();
  bar_open_ = true;
  if (!tty_) endBar();
}

void TrainProgress::onEpoch(const EpochMetrics& m) {
  if (json_) return emit(epochEventJson(m));
  endBar();
  print(epochLogLines(m));
}

void TrainProgress::onFinished(const TrainSummary& s) {
  if (json_) return emit(finishedEventJson(s));
  endBar();
  print(finishedLogLines(s));
}

}  // namespace ywb::cli
