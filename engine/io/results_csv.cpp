// results.csv (ywb/results_csv.h): Ultralytics' columns, one writer, one reader, the best-epoch rule.
#include "ywb/results_csv.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/text.h"
#include "ywb/metrics.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// The columns and the row fields they hold, in file order: the one table the writer and reader share.
struct Column {
  const char* name;
  double ResultsRow::*field;  // null for `epoch` (an int)
  bool end2end_only = false;  // written only by end-to-end runs (their files have it in the header)
};

const std::vector<Column>& columnTable() {
  static const std::vector<Column> cols = {{"epoch", nullptr},
                                           {"time", &ResultsRow::time},
                                           {"train/box_loss", &ResultsRow::train_box},
                                           {"train/cls_loss", &ResultsRow::train_cls},
                                           {"train/dfl_loss", &ResultsRow::train_dfl},
                                           {"metrics/precision(B)", &ResultsRow::precision},
                                           {"metrics/recall(B)", &ResultsRow::recall},
                                           {"metrics/mAP50(B)", &ResultsRow::map50},
                                           {"metrics/mAP50-95(B)", &ResultsRow::map},
                                           {"val/box_loss", &ResultsRow::val_box},
                                           {"val/cls_loss", &ResultsRow::val_cls},
                                           {"val/dfl_loss", &ResultsRow::val_dfl},
                                           {"lr/pg0", &ResultsRow::lr0},
                                           {"lr/pg1", &ResultsRow::lr1},
                                           {"lr/pg2", &ResultsRow::lr2},
                                           {"o2m", &ResultsRow::o2m, true}};
  return cols;
}

// `end2end`: the file holds an end-to-end run, with the columns only such runs write.
std::string headerLine(bool end2end) {
  std::string h;
  for (const auto& c : columnTable())
    if (end2end || !c.end2end_only) h += (h.empty() ? "" : ",") + std::string(c.name);
  return h + "\n";
}

std::string rowLine(const ResultsRow& r, bool end2end) {
  std::string line = std::to_string(r.epoch);
  char buf[32];
  for (size_t i = 1; i < columnTable().size(); ++i) {
    if (!end2end && columnTable()[i].end2end_only) continue;
    // time with 3 decimals, the rest with 5 significant digits (Ultralytics' '%.5g')
    std::snprintf(buf, sizeof buf, i == 1 ? ",%.3f" : ",%.5g", r.*(columnTable()[i].field));
    line += buf;
  }
  return line + "\n";
}

// Whether a file's text has the end-to-end columns in its header (its first line).
bool hasEnd2EndColumns(const std::string& text) {
  for (const std::string& name : csvCells(text.substr(0, text.find('\n'))))
    for (const auto& c : columnTable())
      if (c.end2end_only && name == c.name) return true;
  return false;
}

}  // namespace

ResultsRow resultsRowOf(const EpochMetrics& m) {
  ResultsRow r;
  r.epoch = m.epoch + 1;
  r.time = m.time_s;
  r.train_box = m.train_box;
  r.train_cls = m.train_cls;
  r.train_dfl = m.train_dfl;
  r.precision = m.precision;
  r.recall = m.recall;
  r.map50 = m.map50;
  r.map = m.map;
  r.val_box = m.val_box;
  r.val_cls = m.val_cls;
  r.val_dfl = m.val_dfl;
  r.lr0 = m.lr[0];
  r.lr1 = m.lr[1];
  r.lr2 = m.lr[2];
  r.o2m = m.end2end ? m.o2m : 0;
  return r;
}

const std::vector<std::string>& resultsColumns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : columnTable()) n.emplace_back(c.name);
    return n;
  }();
  return names;
}

std::vector<double> resultsRowValues(const ResultsRow& r) {
  std::vector<double> v{double(r.epoch)};
  for (size_t i = 1; i < columnTable().size(); ++i) v.push_back(r.*(columnTable()[i].field));
  return v;
}

void appendResultsRow(const std::string& path, const ResultsRow& row) {
  std::string text = fs::exists(path) ? readFile(path) : headerLine(row.o2m > 0);
  text += rowLine(row, hasEnd2EndColumns(text));
  writeFileAtomic(path, text);
}

std::vector<ResultsRow> readResults(const std::string& path) {
  std::istringstream in(readFile(path));
  std::string line;
  if (!std::getline(in, line)) fail(path, ":1: empty file, not a results.csv");
  // where each of our columns sits in this file (-1: absent)
  const std::vector<std::string> header = csvCells(line);
  std::vector<int> at(columnTable().size(), -1);
  for (size_t c = 0; c < columnTable().size(); ++c)
    for (size_t h = 0; h < header.size(); ++h)
      if (header[h] == columnTable()[c].name) at[c] = int(h);
  if (at[0] < 0) fail(path, ":1: not a results.csv (no 'epoch' column in the header)");
  std::vector<ResultsRow> rows;
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (trimmed(line).empty()) continue;
    const std::vector<std::string> v = csvCells(line);
    if (v.size() != header.size())
      fail(path, ":", lineno, ": ", v.size(), " values for ", header.size(), " columns");
    ResultsRow r;
    for (size_t c = 0; c < columnTable().size(); ++c) {
      if (at[c] < 0) continue;
      const std::string& s = v[size_t(at[c])];
      char* end = nullptr;
      const double x = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0')
        fail(path, ":", lineno, ": '", s, "' in column ", columnTable()[c].name, " is not a number");
      if (columnTable()[c].field)
        r.*(columnTable()[c].field) = x;
      else
        r.epoch = int(x);
    }
    rows.push_back(r);
  }
  return rows;
}

void truncateResults(const std::string& path, int last_epoch) {
  if (!fs::exists(path)) return;
  const bool end2end = hasEnd2EndColumns(readFile(path));
  std::string text = headerLine(end2end);
  for (const auto& r : readResults(path)) {
    if (r.epoch <= last_epoch) text += rowLine(r, end2end);
  }
  writeFileAtomic(path, text);
}

int bestResultsRow(const std::vector<ResultsRow>& rows) {
  int best = -1;
  double best_fitness = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ResultsRow& r = rows[i];
    if (!r.validated()) continue;
    const double f = modelFitness(r.precision, r.recall, r.map50, r.map);
    if (isNewBest(f, best >= 0, best_fitness)) best = int(i), best_fitness = f;
  }
  return best;
}

}  // namespace ywb
