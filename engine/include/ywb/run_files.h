// The files of a training run folder (runs/detect/<name>/, Ultralytics' layout), named in one place:
// args.yaml (the run's arguments), results.csv (its epochs, ywb/results_csv.h) and weights/ (its
// checkpoints: last, previous, best and epochN .safetensors, train/checkpoint_files.h).
// Thread rules: constants and pure functions.
#pragma once
#include <string>

namespace ywb::run_files {

inline constexpr const char* kArgs = "args.yaml";
inline constexpr const char* kResults = "results.csv";
inline constexpr const char* kWeights = "weights";
inline constexpr const char* kLast = "last.safetensors";  ///< in kWeights

/// `name` (one of the above) inside `run_dir`.
inline std::string path(const std::string& run_dir, const char* name) {
  return run_dir.empty() || run_dir.back() == '/' ? run_dir + name : run_dir + "/" + name;
}

/// The run's last checkpoint, weights/last.safetensors (what resume= continues from).
inline std::string lastCheckpoint(const std::string& run_dir) {
  return path(path(run_dir, kWeights), kLast);
}

}  // namespace ywb::run_files
