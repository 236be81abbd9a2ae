// Parsing of Ultralytics-style `verb key=value ... [--json] [--help]` command lines.
// Thread rules: plain value type.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ywb::cli {

struct Args {
  std::vector<std::string> words;             ///< the verb words ("dataset", "synth")
  std::map<std::string, std::string> values;  ///< key=value pairs, in any order
  bool json = false;
  bool help = false;

  bool has(const std::string& key) const { return values.count(key) != 0; }
  std::string str(const std::string& key, const std::string& fallback = {}) const;
  int64_t integer(const std::string& key, int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  /// Throws ywb::Error naming the first key that is not in `known` (with the closest known key).
  void requireKnown(const std::vector<std::string>& known) const;
};

/// The name in `names` fewest single-character edits away from `word` (the first of equals), if that is at
/// most `max_edits`; empty otherwise. The "did you mean" of unknown arguments and verbs.
std::string closestName(const std::string& word, const std::vector<std::string>& names, size_t max_edits);

/// Splits argv after the program name: leading bare words are the verb, then key=value pairs
/// (also accepted: `--key=value`, `--key value`), `--json`, `--help`/`-h`. Throws ywb::Error.
Args parseArgs(const std::vector<std::string>& argv);

}  // namespace ywb::cli
