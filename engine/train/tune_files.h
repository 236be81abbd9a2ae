// A tune folder's own files (ywb/tune.h): tune_results.csv rows, best_hyperparameters.yaml, and tune.yaml
// (the search space, iteration count and seed that a resume continues with). Each is written atomically.
// Thread rules: free functions; a tune folder is written by one tuning thread.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ywb/tune.h"

namespace ywb {

const char* tuneSettingsFileName();  ///< tune.yaml
/// A value as tune_results.csv and best_hyperparameters.yaml write it (exact to 10 digits).
std::string tuneValueText(double v);

/// The space's arguments' values in `args`, in space order.
std::vector<double> spaceValues(const TrainArgs& args, const std::vector<TuneDimension>& space);

/// Appends one row (writing the header first for a new file).
void appendTuneRow(const std::string& path, const std::vector<TuneDimension>& space, const TuneRow& row);
/// Writes best_hyperparameters.yaml: the best row's values as `name: value`, under comments that say which
/// iteration it is and how to train with it.
void writeTuneBest(const std::string& path, const std::vector<TuneDimension>& space, const TuneRow& best,
                   int best_iteration, int iterations_done);

struct TuneSettings {
  int iterations = 0;
  uint64_t seed = 0;
  std::vector<TuneDimension> space;
};
void writeTuneSettings(const std::string& path, const std::vector<TuneDimension>& space, int iterations,
                       uint64_t seed);
/// Throws ywb::Error naming the file for a missing or broken tune.yaml.
TuneSettings readTuneSettings(const std::string& path);

/// loadTuneSpace() of YAML text; `source` names it in messages.
std::vector<TuneDimension> loadTuneSpaceText(const std::string& yaml, const std::string& source);

}  // namespace ywb
