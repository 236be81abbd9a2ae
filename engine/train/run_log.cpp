#include "train/run_log.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "ywb/train_log.h"
#include "ywb/version.h"

namespace ywb {

RunLog::~RunLog() {
  if (file_) std::fclose(file_);
}

void RunLog::open(const std::string& run_dir, const std::string& header) {
  if (file_ || failed_) return;
  path_ = (std::filesystem::path(run_dir) / kRunLogFile).string();
  file_ = std::fopen(path_.c_str(), "a");
  if (!file_) {
    failed_ = true;
    const std::string why = std::strerror(errno);
    if (next_)
      next_->onLog("could not open " + path_ + " (" + why + "): the run goes on without its log file");
    return;
  }
  std::vector<std::string> first = {header};
  first.insert(first.end(), pending_.begin(), pending_.end());
  pending_.clear();
  write(first);
}

void RunLog::write(const std::vector<std::string>& lines) {
  if (failed_ || lines.empty()) return;
  if (!file_) {
    pending_.insert(pending_.end(), lines.begin(), lines.end());
    return;
  }
  // One buffered write per event, flushed at once: the lines reach the file (the kernel) as they happen,
  // so a killed process leaves them; no fsync (a power cut may lose the last lines, as for any log).
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    failed_ = true;
    const std::string why = std::strerror(errno);
    std::fclose(file_);
    file_ = nullptr;
    if (next_)
      next_->onLog("could not write " + path_ + " (" + why + "): the run goes on without its log file");
  }
}

void RunLog::onPhase(TrainPhase phase, const std::string& detail) {
  const std::string line = phaseLogLine(phase, detail);
  if (!line.empty()) write({line});
  if (next_) next_->onPhase(phase, detail);
}

void RunLog::onStep(const StepMetrics& m) {
  if (m.batch + 1 == m.batches) {  // an epoch's last step: its final progress line, no redraws
    std::vector<std::string> lines;
    if (header_epoch_ != m.epoch) lines = {"", stepLogHeader()};
    header_epoch_ = m.epoch;
    lines.push_back(stepLogLine(m));
    write(lines);
  }
  if (next_) next_->onStep(m);
}

void RunLog::onEpoch(const EpochMetrics& m) {
  write(epochLogLines(m));
  if (next_) next_->onEpoch(m);
}

void RunLog::onLog(const std::string& line) {
  write({line});
  if (next_) next_->onLog(line);
}

void RunLog::onFinished(const TrainSummary& s) {
  write(finishedLogLines(s));
  if (next_) next_->onFinished(s);
}

std::string runLogSessionHeader(const std::string& what) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  return std::string("=== ") + when + " ywb " + kVersion + ": " + what + " ===";
}

}  // namespace ywb
