#include "data/label_parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace ywb {
namespace {

bool parseNumber(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return false;
  *out = v;
  return true;
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Returns "" when the row is valid (box filled), or the reason it is not.
std::string parseRow(const std::vector<std::string>& f, int nc, LabelBox* box) {
  const size_t n = f.size();
  const bool polygon = n > 5 && (n - 1) % 2 == 0 && n - 1 >= 6;
  if (n != 5 && !polygon) {
    return "row has " + std::to_string(n) +
           " fields, expected 5 (class cx cy w h) or a polygon (class x1 y1 x2 y2 x3 y3 ...)";
  }
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (!parseNumber(f[i], &v[i]))
      return "non-numeric value '" + f[i] + "' in field " + std::to_string(i + 1);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return "NaN or infinite value '" + f[i] + "' in field " + std::to_string(i + 1);
  }
  if (v[0] != std::floor(v[0])) return "class '" + f[0] + "' is not a whole number";
  if (v[0] < 0 || v[0] >= nc) {
    return "class " + f[0] + " outside [0, " + std::to_string(nc) + ") (data.yaml names " +
           std::to_string(nc) + " classes)";
  }
  double x1, y1, x2, y2;
  const double tol = kLabelClipTolerance;
  if (!polygon) {
    for (size_t i = 1; i < 5; ++i) {
      if (v[i] < -tol || v[i] > 1 + tol) {
        return "coordinate " + fmt(v[i]) + " in field " + std::to_string(i + 1) +
               " outside [0, 1]; labels must be normalised to the image size";
      }
    }
    x1 = v[1] - v[3] / 2, x2 = v[1] + v[3] / 2, y1 = v[2] - v[4] / 2, y2 = v[2] + v[4] / 2;
    if (v[3] < 0 || v[4] < 0) return "negative width or height";
  } else {
    x1 = y1 = 1e30, x2 = y2 = -1e30;
    for (size_t i = 1; i + 1 < n; i += 2) {
      x1 = std::min(x1, v[i]), x2 = std::max(x2, v[i]);
      y1 = std::min(y1, v[i + 1]), y2 = std::max(y2, v[i + 1]);
    }
  }
  for (double e : {x1, y1, x2, y2}) {
    if (e < -tol || e > 1 + tol) {
      return "box edge at " + fmt(e) + " outside [0, 1] by more than " + fmt(tol) +
             "; labels must be normalised to the image size";
    }
  }
  box->cls = int(v[0]);
  const double r = kLabelTextRounding;
  if (!polygon && x1 >= -r && y1 >= -r && x2 <= 1 + r && y2 <= 1 + r) {
    box->cx = float(v[1]), box->cy = float(v[2]), box->w = float(v[3]), box->h = float(v[4]);
    return {};
  }
  x1 = std::clamp(x1, 0.0, 1.0), x2 = std::clamp(x2, 0.0, 1.0);
  y1 = std::clamp(y1, 0.0, 1.0), y2 = std::clamp(y2, 0.0, 1.0);
  box->cx = float((x1 + x2) / 2), box->cy = float((y1 + y2) / 2);
  box->w = float(x2 - x1), box->h = float(y2 - y1);
  return {};
}

}  // namespace

LabelParseResult parseLabels(const std::string& text, int nc) {
  LabelParseResult r;
  // Row seen -> its line: duplicates found in O(log n) so a hostile file of many rows cannot stall a scan.
  std::map<std::tuple<int, float, float, float, float>, int> seen;
  // A UTF-8 byte-order mark (Windows Notepad writes one) is invisible to the user and would make the first
  // row "non-numeric"; it is not part of the data, so it is skipped.
  std::istringstream in(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::vector<std::string> fields;
    for (std::string f; ls >> f;) fields.push_back(f);
    if (fields.empty()) continue;
    LabelBox b;
    const std::string why = parseRow(fields, nc, &b);
    if (!why.empty()) {
      r.invalid = true;
      r.problems.push_back({lineno, why});
      continue;
    }
    if (b.w <= 0 || b.h <= 0) {
      ++r.rows_dropped;
      r.problems.push_back({lineno, "zero-area box dropped"});
      continue;
    }
    const auto [it, fresh] = seen.emplace(std::make_tuple(b.cls, b.cx, b.cy, b.w, b.h), lineno);
    if (!fresh) {
      ++r.duplicates_removed;
      r.problems.push_back(
          {lineno, "duplicate row removed (same as line " + std::to_string(it->second) + ")"});
      continue;
    }
    r.boxes.push_back(b);
  }
  if (r.invalid) r.boxes.clear();
  return r;
}

}  // namespace ywb
