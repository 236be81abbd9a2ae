// A tune folder's files (ywb/tune.h): tune_results.csv (one row per iteration), best_hyperparameters.yaml (a
// cfg= file for `ywb train`), and tune.yaml (the space and count a resume continues with).
#include "train/tune_files.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace ywb {

const char* tuneResultsFileName() {
  return "tune_results.csv";
}
const char* tuneBestFileName() {
  return "best_hyperparameters.yaml";
}
const char* tuneSettingsFileName() {
  return "tune.yaml";
}

std::string tuneValueText(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

std::vector<double> spaceValues(const TrainArgs& args, const std::vector<TuneDimension>& space) {
  std::vector<double> v;
  for (const auto& d : space) v.push_back(std::strtod(args.get(d.name).c_str(), nullptr));
  return v;
}

std::vector<TuneRow> readTuneResults(const std::string& path, const std::vector<TuneDimension>& space) {
  std::istringstream in(readFile(path));
  std::string line;
  std::vector<TuneRow> rows;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (trimmed(line).empty()) continue;
    const std::vector<std::string> cells = csvCells(line);
    if (n == 1) {
      std::string want = "fitness";
      for (const auto& d : space) want += "," + d.name;
      std::string got;
      for (const auto& c : cells) got += (got.empty() ? "" : ",") + c;
      if (got != want)
        fail(path, ":1: columns '", got, "' are not this tune's '", want,
             "' (a tune folder is continued with its own search space)");
      continue;
    }
    if (cells.size() != space.size() + 1)
      fail(path, ":", n, ": ", cells.size(), " values, expected ", space.size() + 1);
    TuneRow r;
    for (size_t i = 0; i < cells.size(); ++i) {
      char* end = nullptr;
      const double v = std::strtod(cells[i].c_str(), &end);
      if (cells[i].empty() || *end != '\0') fail(path, ":", n, ": '", cells[i], "' is not a number");
      (i == 0 ? r.fitness : r.values.emplace_back()) = v;
    }
    rows.push_back(std::move(r));
  }
  if (n == 0) fail(path, ": empty (no header)");
  return rows;
}

void appendTuneRow(const std::string& path, const std::vector<TuneDimension>& space, const TuneRow& row) {
  std::string text;
  if (fs::exists(path)) {
    text = readFile(path);
    if (!text.empty() && text.back() != '\n') text += '\n';
  } else {
    text = "fitness";
    for (const auto& d : space) text += "," + d.name;
    text += '\n';
  }
  text += tuneValueText(row.fitness);
  for (const double v : row.values) text += "," + tuneValueText(v);
  writeFileAtomic(path, text + '\n');
}

void writeTuneBest(const std::string& path, const std::vector<TuneDimension>& space, const TuneRow& best,
                   int best_iteration, int iterations_done) {
  std::string text =
      "# YOLO Workbench hyperparameter tuning: the best of " + std::to_string(iterations_done) +
      " iterations so far, iteration " + std::to_string(best_iteration) + " (iter" +
      std::to_string(best_iteration) + "/), fitness " + tuneValueText(best.fitness) +
      "\n# (its best epoch's mAP50-95). Train with it: ywb train cfg=" + fs::path(path).filename().string() +
      " data=... model=...\n";
  for (size_t i = 0; i < space.size() && i < best.values.size(); ++i)
    text += space[i].name + ": " + tuneValueText(best.values[i]) + "\n";
  writeFileAtomic(path, text);
}

void writeTuneSettings(const std::string& path, const std::vector<TuneDimension>& space, int iterations,
                       uint64_t seed) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "iterations" << YAML::Value << iterations << YAML::Key << "seed"
    << YAML::Value << seed << YAML::Key << "space" << YAML::Value << YAML::BeginMap;
  for (const auto& d : space) {
    e << YAML::Key << d.name << YAML::Value << YAML::Flow << YAML::BeginSeq << d.lo << d.hi << d.gain
      << YAML::EndSeq;
  }
  e << YAML::EndMap << YAML::EndMap;
  writeFileAtomic(path, std::string(e.c_str()) + "\n");
}

TuneSettings readTuneSettings(const std::string& path) {
  TuneSettings s;
  YAML::Node root;
  try {
    root = YAML::Load(readFile(path));
    s.iterations = root["iterations"].as<int>();
    s.seed = root["seed"].as<uint64_t>();
    if (!root["space"].IsMap()) fail(path, ": 'space' is not a mapping");
  } catch (const YAML::Exception& e) {
    fail(path, ": not a tune folder's settings (iterations, seed, space): ", e.what());
  }
  // The space is written in the search-space file's own form: read it back with the same reader and checks.
  const std::string space_text = YAML::Dump(root["space"]);
  s.space = loadTuneSpaceText(space_text, path);
  return s;
}

}  // namespace ywb
