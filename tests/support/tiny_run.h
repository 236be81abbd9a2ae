// One tiny training run for tests: a generated shapes dataset and the arguments of a short fp32 CPU run on
// it. Tests change the few fields they are about; the rest stays the same everywhere.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ywb/error.h"

#include "ywb/synth.h"
#include "ywb/train_args.h"
#include "ywb/trainer.h"

namespace ywb::test {

/// The generated dataset: its size, and the generator's own defaults for the rest.
struct TinyData {
  int train = 16, val = 8;
  int imgsz = 96;
  uint64_t seed = SynthOptions{}.seed;
  int max_objects = SynthOptions{}.max_objects;
  int workers = 2;  ///< generator threads (2: the CI machine's cores)
};

/// Writes the synthetic shapes dataset to `dir`/shapes and returns its data.yaml.
inline std::string tinyDataset(const std::string& dir, const TinyData& d = {}) {
  SynthOptions o;
  o.out = dir + "/shapes";
  o.train = d.train;
  o.val = d.val;
  o.imgsz = d.imgsz;
  o.seed = d.seed;
  o.max_objects = d.max_objects;
  o.workers = d.workers;
  return synthesizeDataset(o).data_yaml;
}

/// A tiny run on `data` writing under `project`: 2 epochs at 96 px, batch 8, 2 loader workers, CPU, fp32
/// (AMP off: the same numbers on every machine), seed 1.
inline TrainArgs tinyRunArgs(const std::string& data, const std::string& project) {
  TrainArgs a;
  a.data = data;
  a.project = project;
  a.imgsz = 96;
  a.batch = 8;
  a.workers = 2;
  a.epochs = 2;
  a.amp = false;
  a.device = "cpu";
  a.seed = 1;
  return a;
}

/// `args` with key=value settings applied as the command line applies them (range-checked). Throws ywb::Error
/// for an unknown key or a bad value.
inline TrainArgs withArgs(TrainArgs args, const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [key, value] : settings)
    if (!args.set(key, value)) throw Error("unknown training argument '" + key + "'");
  return args;
}

/// Keeps a run's log lines; `said(prefix)`: whether one starts with `prefix`.
struct LogLines : ywb::TrainObserver {
  void onLog(const std::string& l) override { lines.push_back(l); }
  bool said(const std::string& prefix) const {
    for (const auto& l : lines)
      if (l.rfind(prefix, 0) == 0) return true;
    return false;
  }
  std::vector<std::string> lines;
};

/// Stops the run after epoch `at` (0-based) has been saved; keeps the run's log lines.
class StopAfterEpoch : public ywb::TrainObserver {
 public:
  StopAfterEpoch(ywb::Trainer& t, int at) : trainer_(t), at_(at) {}
  void onEpoch(const ywb::EpochMetrics& m) override {
    if (m.epoch == at_) trainer_.requestStop();
  }
  void onLog(const std::string& line) override { log += line + "\n"; }
  std::string log;

 private:
  ywb::Trainer& trainer_;
  int at_;
};

/// Runs `args` stopped after epoch `at` (its checkpoint saved), then resumes it from its run folder to the
/// end; returns the resumed session's summary (its run folder is the first session's).
inline TrainSummary stopThenResume(const TrainArgs& args, int at = 0) {
  Trainer first(args);
  StopAfterEpoch stopper(first, at);
  first.setObserver(&stopper);
  const TrainSummary stopped = first.run();
  if (!stopped.stopped) throw Error("the run was not stopped after epoch " + std::to_string(at));
  TrainArgs r;
  r.resume = stopped.run_dir;
  return Trainer(r).run();
}

}  // namespace ywb::test
