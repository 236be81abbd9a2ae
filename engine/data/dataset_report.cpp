// checkDataset() and the report's JSON/text forms.
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ywb/dataset.h"
#include "ywb/dataset_listing.h"

namespace ywb {

bool DatasetReport::ok() const {
  for (const auto& s : splits) {
    if (s.corrupt > 0 || s.images - s.corrupt <= 0) return false;
  }
  return !splits.empty();
}

DatasetReport checkDataset(const std::string& yaml, int workers) {
  return listDataset(yaml, workers).report;  // one scan path for the report and the listing
}

std::string datasetReportJson(const DatasetReport& report) {
  nlohmann::ordered_json j;
  j["data"] = report.config.yaml;
  j["root"] = report.config.root;
  j["nc"] = report.config.names.size();
  j["names"] = report.config.names;
  j["ok"] = report.ok();
  for (const auto& s : report.splits) {
    nlohmann::ordered_json js;
    js["images"] = s.images;
    js["with_labels"] = s.with_labels;
    js["backgrounds"] = s.backgrounds;
    js["orphans"] = s.orphans;
    js["corrupt"] = s.corrupt;
    js["boxes"] = s.boxes;
    js["duplicates_removed"] = s.duplicates_removed;
    js["rows_dropped"] = s.rows_dropped;
    js["per_class"] = s.per_class;
    js["cache"] = s.cache_path;
    js["from_cache"] = s.from_cache;
    js["cache_note"] = s.cache_note;
    js["seconds"] = s.seconds;
    js["problems"] = nlohmann::ordered_json::array();
    for (const auto& p : s.problems)
      js["problems"].push_back({{"file", p.file}, {"line", p.line}, {"reason", p.reason}});
    j["splits"][s.split] = js;
  }
  return j.dump(2);
}

std::string datasetReportText(const DatasetReport& report, int max_problems) {
  std::ostringstream os;
  os << "Dataset " << report.config.yaml << " (root " << report.config.root << ", "
     << report.config.names.size() << " classes)\n";
  for (const auto& s : report.splits) {
    int classes_present = 0;
    for (int c : s.per_class) classes_present += c > 0;
    os << "  " << std::left << std::setw(5) << s.split << std::right << " " << s.images
       << " images: " << s.with_labels << " with labels, " << s.backgrounds << " backgrounds, " << s.corrupt
       << " corrupt, " << s.orphans << " orphan label files; " << s.boxes << " boxes in " << classes_present
       << " classes";
    if (s.duplicates_removed) os << ", " << s.duplicates_removed << " duplicate rows removed";
    if (s.rows_dropped) os << ", " << s.rows_dropped << " zero-area rows dropped";
    os << " (" << std::fixed << std::setprecision(2) << s.seconds << " s"
       << (s.from_cache ? ", from cache" : "") << ")\n";
    os.unsetf(std::ios::fixed);
    if (!s.cache_note.empty()) os << "        note: " << s.cache_note << "\n";
    int shown = 0;
    for (const auto& p : s.problems) {
      if (max_problems > 0 && shown == max_problems) {
        os << "        ... and " << s.problems.size() - size_t(shown) << " more (use --json for all)\n";
        break;
      }
      os << "        " << p.file;
      if (p.line > 0) os << ":" << p.line;
      os << ": " << p.reason << "\n";
      ++shown;
    }
  }
  os << (report.ok() ? "OK\n" : "PROBLEMS: corrupt images are excluded from training\n");
  return os.str();
}

}  // namespace ywb
