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

int reportError(const Args& args, const std::string& message) {
  if (args.json) {
    std::cout << nlohmann::json{{"error", message}}.dump() << std::endl;
  }
  std::cerr << "ywb: error: " << message << std::endl;
  return 1;
}

}  // namespace ywb::cli
