#include "cli/class_counts.h"

#include <map>

namespace ywb::cli {

std::string plural(const std::string& name) {
  const auto endsWith = [&](const char* tail) {
    const std::string t(tail);
    return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
  };
  if (endsWith("s") || endsWith("x") || endsWith("z") || endsWith("ch") || endsWith("sh")) return name + "es";
  if (name.size() >= 2 && name.back() == 'y' &&
      std::string("aeiou").find(name[name.size() - 2]) == std::string::npos)
    return name.substr(0, name.size() - 1) + "ies";
  return name + "s";
}

std::string classCounts(const std::vector<DetBox>& boxes, const std::vector<std::string>& names) {
  std::map<int, int> counts;
  for (const auto& b : boxes) ++counts[b.cls];
  std::string s;
  for (const auto& [cls, n] : counts) {
    if (!s.empty()) s += ", ";
    const std::string name =
        cls >= 0 && size_t(cls) < names.size() ? names[size_t(cls)] : "class " + std::to_string(cls);
    s += std::to_string(n) + " " + (n > 1 ? plural(name) : name);
  }
  return s.empty() ? "no detections" : s;
}

}  // namespace ywb::cli
