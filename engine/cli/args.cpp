#include "cli/args.h"

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "core/text.h"

namespace ywb::cli {
namespace {

size_t editDistance(const std::string& a, const std::string& b) {  // Levenshtein
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string closestName(const std::string& word, const std::vector<std::string>& names, size_t max_edits) {
  std::string best;
  size_t best_d = max_edits + 1;
  for (const auto& n : names) {
    const size_t d = editDistance(word, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

std::string Args::str(const std::string& key, const std::string& fallback) const {
  auto it = values.find(key);
  return it == values.end() ? fallback : it->second;
}

int64_t Args::integer(const std::string& key, int64_t fallback) const {
  auto it = values.find(key);
  if (it == values.end()) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0')
    fail("invalid value '", it->second, "' for ", key, "=: expected an integer");
  return v;
}

double Args::number(const std::string& key, double fallback) const {
  auto it = values.find(key);
  if (it == values.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0')
    fail("invalid value '", it->second, "' for ", key, "=: expected a number");
  return v;
}

bool Args::boolean(const std::string& key, bool fallback) const {
  auto it = values.find(key);
  if (it == values.end()) return fallback;
  if (const std::optional<bool> v = switchWord(it->second)) return *v;
  fail("invalid value '", it->second, "' for ", key, "=: expected true or false");
}

void Args::requireKnown(const std::vector<std::string>& known) const {
  for (const auto& [key, value] : values) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string best = closestName(key, known, 2);
    fail("unknown argument '", key, "='", best.empty() ? "" : " (did you mean '" + best + "='?)",
         "; see --help for the valid arguments");
  }
}

Args parseArgs(const std::vector<std::string>& argv) {
  Args a;
  bool verb_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string s = argv[i];
    if (s == "--json") {
      a.json = true;
      continue;
    }
    if (s == "--help" || s == "-h" || s == "help") {
      a.help = true;
      continue;
    }
    if (s.rfind("--", 0) == 0) {
      s = s.substr(2);
      if (s.find('=') == std::string::npos) {
        if (i + 1 >= argv.size()) fail("option --", s, " needs a value (write ", s, "=VALUE)");
        s += "=" + argv[++i];
      }
    }
    const auto eq = s.find('=');
    if (eq == std::string::npos) {
      if (verb_done) fail("unexpected word '", s, "': arguments are key=value (for example imgsz=640)");
      a.words.push_back(s);
      continue;
    }
    verb_done = true;
    const std::string key = s.substr(0, eq);
    if (key.empty()) fail("argument '", s, "' has no key before '='");
    if (a.values.count(key)) fail("argument ", key, "= given twice");
    a.values[key] = s.substr(eq + 1);
  }
  return a;
}

}  // namespace ywb::cli
