#include "cli/verb_registry.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ywb::cli {
namespace {

std::vector<Verb>& registry() {
  static std::vector<Verb> verbs;
  return verbs;
}

}  // namespace

RegisterVerb::RegisterVerb(Verb verb) {
  auto& r = registry();
  r.push_back(std::move(verb));
  std::sort(r.begin(), r.end(), [](const Verb& a, const Verb& b) { return a.name < b.name; });
}

const std::vector<Verb>& allVerbs() {
  return registry();
}

const Verb* findVerb(const std::vector<std::string>& words, size_t* used) {
  for (size_t n = std::min<size_t>(words.size(), 2); n >= 1; --n) {
    std::string name = words[0];
    for (size_t i = 1; i < n; ++i) name += " " + words[i];
    for (const auto& v : registry()) {
      if (v.name == name) {
        *used = n;
        return &v;
      }
    }
  }
  return nullptr;
}

std::vector<const Verb*> verbsInGroup(const std::string& group) {
  std::vector<const Verb*> out;
  for (const auto& v : registry())
    if (v.name.size() > group.size() && v.name.compare(0, group.size() + 1, group + " ") == 0)
      out.push_back(&v);
  return out;
}

std::string unknownVerbMessage(const std::vector<std::string>& words) {
  size_t used = 0;
  if (const Verb* v = findVerb(words, &used); v && used < words.size())
    return "unexpected word '" + words[used] + "' after '" + v->name +
           "': arguments are key=value (for example imgsz=640)";
  const auto group = verbsInGroup(words[0]);
  if (!group.empty()) {
    std::string names;
    std::vector<std::string> seconds;
    for (const Verb* v : group) {
      names += (names.empty() ? "" : ", ") + v->name;
      seconds.push_back(v->name.substr(words[0].size() + 1));
    }
    if (words.size() == 1) return "'" + words[0] + "' needs a second word: " + names;
    const std::string best = closestName(words[1], seconds, 2);
    return "unknown verb '" + words[0] + " " + words[1] + "'" +
           (best.empty() ? "" : " (did you mean '" + words[0] + " " + best + "'?)") + "; '" + words[0] +
           "' takes " + names;
  }
  std::vector<std::string> names;
  for (const auto& v : registry()) names.push_back(v.name.substr(0, v.name.find(' ')));
  std::string best = closestName(words[0], names, 2);
  if (const auto g = verbsInGroup(best); !g.empty()) best += " ...";
  std::string name = words[0];
  for (size_t i = 1; i < words.size(); ++i) name += " " + words[i];
  return "unknown verb '" + name + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)");
}

int reportError(const Args& args, const std::string& message) {
  if (args.json) {
    std::cout << nlohmann::json{{"error", message}}.dump() << std::endl;
  }
  std::cerr << "ywb: error: " << message << std::endl;
  return 1;
}

}  // namespace ywb::cli
