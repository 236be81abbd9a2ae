#include "train/run_dir.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace fs = std::filesystem;

namespace ywb {

std::string makeRunDir(const std::string& project, const std::string& name, bool exist_ok) {
  fs::path dir = fs::path(project) / name;
  if (!exist_ok) {
    for (int i = 2; fs::exists(dir); ++i) dir = fs::path(project) / (name + std::to_string(i));
  }
  std::error_code ec;
  fs::create_directories(dir / "weights", ec);
  if (ec) fail("cannot create run folder '", dir.string(), "': ", ec.message());
  return dir.string();
}

const std::vector<std::string>& resultsColumns() {
  static const std::vector<std::string> cols = {"epoch",
                                                "time",
                                                "train/box_loss",
                                                "train/cls_loss",
                                                "train/dfl_loss",
                                                "metrics/precision(B)",
                                                "metrics/recall(B)",
                                                "metrics/mAP50(B)",
                                                "metrics/mAP50-95(B)",
                                                "val/box_loss",
                                                "val/cls_loss",
                                                "val/dfl_loss",
                                                "lr/pg0",
                                                "lr/pg1",
                                                "lr/pg2"};
  return cols;
}

namespace {

std::string headerLine() {
  std::string h;
  for (const auto& c : resultsColumns()) h += (h.empty() ? "" : ",") + c;
  return h + "\n";
}

std::string rowLine(const ResultsRow& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%d,%.3f,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g\n",
                r.epoch, r.time, r.train_box, r.train_cls, r.train_dfl, r.precision, r.recall, r.map50, r.map,
                r.val_box, r.val_cls, r.val_dfl, r.lr0, r.lr1, r.lr2);
  return buf;
}

}  // namespace

void appendResultsRow(const std::string& path, const ResultsRow& row) {
  std::string text = fs::exists(path) ? readFile(path) : headerLine();
  text += rowLine(row);
  writeFileAtomic(path, text);
}

std::vector<ResultsRow> readResults(const std::string& path) {
  std::istringstream in(readFile(path));
  std::string line;
  std::vector<ResultsRow> rows;
  if (!std::getline(in, line) || line + "\n" != headerLine()) {
    fail(path, ":1: not a results.csv (unexpected header)");
  }
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (line.empty()) continue;
    ResultsRow r;
    const int n =
        std::sscanf(line.c_str(), "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &r.epoch,
                    &r.time, &r.train_box, &r.train_cls, &r.train_dfl, &r.precision, &r.recall, &r.map50,
                    &r.map, &r.val_box, &r.val_cls, &r.val_dfl, &r.lr0, &r.lr1, &r.lr2);
    if (n != 15) fail(path, ":", lineno, ": expected 15 comma-separated numbers");
    rows.push_back(r);
  }
  return rows;
}

void truncateResults(const std::string& path, int last_epoch) {
  if (!fs::exists(path)) return;
  std::string text = headerLine();
  for (const auto& r : readResults(path)) {
    if (r.epoch <= last_epoch) text += rowLine(r);
  }
  writeFileAtomic(path, text);
}

}  // namespace ywb
