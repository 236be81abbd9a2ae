#include "model/layer_builder.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace ywb::model {

std::string LayerContext::where() const {
  return "layer " + std::to_string(row.index) + " (" + row.module + ")";
}

bool LayerContext::has(size_t i) const {
  return i < row.args.size() && row.args[i] != "None" && row.args[i] != "null";
}

double LayerContext::real(size_t i, double fallback) const {
  if (!has(i)) return fallback;
  if (row.args[i] == "nc") return double(spec.nc);
  try {
    size_t used = 0;
    const double v = std::stod(row.args[i], &used);
    if (used == row.args[i].size()) return v;
  } catch (const std::exception&) {
  }
  fail(where(), ": argument ", i, " '", row.args[i], "' is not a number");
}

int64_t LayerContext::integer(size_t i, int64_t fallback) const {
  return has(i) ? static_cast<int64_t>(real(i, 0)) : fallback;
}

bool LayerContext::boolean(size_t i, bool fallback) const {
  if (!has(i)) return fallback;
  const std::string& s = row.args[i];
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  fail(where(), ": argument ", i, " '", s, "' is not True/False");
}

int64_t LayerContext::width(int64_t c2) const {
  return c2 != spec.nc ? makeDivisible(double(std::min(c2, spec.max_channels)) * spec.width, 8) : c2;
}

void LayerContext::requireOneInput() const {
  if (row.from.size() != 1) fail(where(), ": takes one input, got ", row.from.size());
}

void LayerContext::requireNoRepeats() const {
  if (n != 1) fail(where(), ": repeats > 1 is not supported for ", row.module);
}

void LayerContext::requireArgsAtMost(size_t count, const char* names) const {
  if (row.args.size() > count)
    fail(where(), ": argument ", count, " '", row.args[count], "' is unknown: ", row.module,
         " takes at most ", count, " (", names, ")");
}

std::string argText(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(int64_t(v)) + ".0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Shortest text that reads back the same (Python's repr).
  for (int prec = 1; prec <= 17; ++prec) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*g", prec, v);
    if (std::stod(b) == v) return b;
  }
  return buf;
}

}  // namespace ywb::model
