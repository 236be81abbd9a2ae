// The run folder (runs/detect/<name>/): auto-incremented names and its weights/ folder (results.csv:
// ywb/results_csv.h). Thread rules: owned by the trainer thread (rank 0 only).
#pragma once
#include <string>
#include <vector>

#include "ywb/results_csv.h"  // results.csv itself

namespace ywb {

/// Picks `project/name`, or the first free `project/name2`, `name3`, ... unless exist_ok. Creates it and,
/// for a training run, its weights/ folder. Throws ywb::Error when it cannot be created.
std::string makeRunDir(const std::string& project, const std::string& name, bool exist_ok,
                       bool weights_folder = true);

}  // namespace ywb
