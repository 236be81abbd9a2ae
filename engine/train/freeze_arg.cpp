#include "train/freeze_arg.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/error.h"
#include "core/text.h"

namespace ywb {
namespace {

[[noreturn]] void badFreeze(const std::string& text, const std::string& why) {
  fail("freeze=", text, ": ", why,
       "; expected a layer count (freeze=10 freezes layers 0-9) or a list of layer indices (freeze=[0, 1, "
       "2])");
}

// A layer index or count: digits only, at most 4 of them (models have tens of layers).
int layerNumber(const std::string& text, const std::string& piece) {
  if (piece.empty()) badFreeze(text, "an empty entry");
  if (piece[0] == '-') badFreeze(text, "layer indices are 0 or more");
  if (!std::all_of(piece.begin(), piece.end(), [](char c) { return c >= '0' && c <= '9'; }))
    badFreeze(text, "'" + piece + "' is not a layer number");
  if (piece.size() > 4) badFreeze(text, piece + " is far beyond any model's layers");
  return std::stoi(piece);
}

// The indices of a canonical list "[a, b, c]" (already checked by canonicalFreezeText).
std::vector<int> canonicalList(const std::string& canonical) {
  std::vector<int> layers;
  const std::string inner = canonical.substr(1, canonical.size() - 2);
  for (size_t start = 0; start <= inner.size();) {
    const size_t comma = std::min(inner.find(',', start), inner.size());
    layers.push_back(std::stoi(inner.substr(start, comma - start)));
    start = comma + 1;
  }
  return layers;
}

}  // namespace

std::string canonicalFreezeText(const std::string& text) {
  std::string t = trimmed(text);
  const std::string lower = asciiLower(t);
  if (lower.empty() || lower == "none" || lower == "null" || lower == "~") return "";
  const bool bracketed = t.front() == '[' || t.front() == '(';
  if (bracketed) {
    const char close = t.front() == '[' ? ']' : ')';
    if (t.back() != close) badFreeze(text, "the list is not closed");
    t = trimmed(t.substr(1, t.size() - 2));
    if (t.empty()) return "";
  }
  std::vector<int> layers;
  size_t start = 0;
  while (true) {
    const size_t comma = t.find(',', start);
    const std::string piece =
        trimmed(t.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    // Python's one-element tuple (0,) ends with a comma.
    if (!(piece.empty() && comma == std::string::npos && !layers.empty()))
      layers.push_back(layerNumber(text, piece));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!bracketed && layers.size() == 1) return layers[0] == 0 ? "" : std::to_string(layers[0]);
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  std::string out = "[";
  for (size_t i = 0; i < layers.size(); ++i) out += (i ? ", " : "") + std::to_string(layers[i]);
  return out + "]";
}

std::vector<int> frozenLayerList(const std::string& canonical, int layer_count) {
  std::vector<int> layers;
  if (canonical.empty()) return layers;
  const std::string range =
      "the model has " + std::to_string(layer_count) + " layers, 0-" + std::to_string(layer_count - 1);
  if (canonical.front() != '[') {
    const int n = std::stoi(canonical);
    if (n > layer_count) fail("freeze=", canonical, ": ", range);
    for (int i = 0; i < n; ++i) layers.push_back(i);
  } else {
    layers = canonicalList(canonical);
    for (int i : layers)
      if (i >= layer_count) fail("freeze=", canonical, ": no layer ", i, " (", range, ")");
  }
  if (int(layers.size()) == layer_count)
    fail("freeze=", canonical, " freezes every layer, the Detect head too: nothing would train (", range,
         ")");
  return layers;
}

void emitFreezeYaml(YAML::Emitter& out, const std::string& canonical) {
  if (canonical.empty()) {
    out.SetNullFormat(YAML::LowerNull);  // PyYAML's spelling, as Ultralytics writes it
    out << YAML::Null;
  } else if (canonical.front() != '[') {
    out << std::stoi(canonical);
  } else {
    out << YAML::Flow << YAML::BeginSeq;
    for (int i : canonicalList(canonical)) out << i;
    out << YAML::EndSeq;
  }
}

std::string layerRangesText(const std::vector<int>& layers) {
  std::string out;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(layers[i]);
    if (j > i) out += "-" + std::to_string(layers[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ywb
