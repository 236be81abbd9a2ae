// A class's name as tables, labels and plots show it: names[c], or the index where `names` has none (a
// class outside the list, a checkpoint with fewer names).
// Thread rules: pure function.
#pragma once
#include <string>
#include <vector>

namespace ywb {

inline std::string className(const std::vector<std::string>& names, int c) {
  return c >= 0 && size_t(c) < names.size() ? names[size_t(c)] : std::to_string(c);
}

}  // namespace ywb
