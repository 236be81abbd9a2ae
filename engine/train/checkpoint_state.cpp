#include "train/checkpoint_state.h"

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "core/error.h"

namespace ywb {
namespace {

// Every key with its field, once; `required` keys must be present to resume.
template <class State, class Visit>
void eachField(State& c, Visit&& visit) {
  visit("epoch", c.epoch, true);
  visit("epochs", c.epochs, true);
  visit("best_fitness", c.best_fitness, true);
  visit("best_epoch", c.best_epoch, true);
  visit("ema_updates", c.ema_updates, true);
  visit("last_opt_step", c.last_opt_step, true);
  visit("scaler_scale", c.scaler_scale, true);
  visit("scaler_growth", c.scaler_growth, true);
  visit("elapsed", c.elapsed, true);
  visit("images_trained", c.images_trained, true);
  visit("train_seconds", c.train_seconds, true);
  visit("lr_scale", c.lr_scale, false);
  visit("nonfinite_rollbacks", c.nonfinite_rollbacks, false);
  visit("args", c.args, true);
  visit("run_dir", c.run_dir, true);
  visit("nc", c.nc, false);
  visit("names", c.names, false);
  visit("imgsz", c.imgsz, false);
  visit("model_yaml", c.model_yaml, false);
  visit("metrics", c.metrics, false);
  visit("amp", c.amp, false);
  visit("version", c.version, false);
  visit("optimizer", c.optimizer, false);
  visit("optimizer_lr", c.optimizer_lr, false);
  visit("optimizer_momentum", c.optimizer_momentum, false);
  visit("optimizer_auto", c.optimizer_auto, false);
}

std::string text(const std::string& v) {
  return v;
}
std::string text(int v) {
  return std::to_string(v);
}
std::string text(int64_t v) {
  return std::to_string(v);
}
std::string text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool parse(const std::string& s, std::string& out) {
  out = s;
  return true;
}
template <class Number>
bool parse(const std::string& s, Number& out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') return false;
  out = Number(v);
  if constexpr (!std::is_floating_point_v<Number>) {
    const long long i = std::strtoll(s.c_str(), &end, 10);  // exact for large counters
    if (*end == '\0') out = Number(i);
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> CheckpointState::toMetadata() const {
  std::map<std::string, std::string> meta;
  eachField(*this, [&](const char* key, const auto& value, bool) { meta[key] = text(value); });
  return meta;
}

CheckpointState CheckpointState::fromMetadata(const std::map<std::string, std::string>& meta,
                                              const std::string& source) {
  CheckpointState c;
  eachField(c, [&](const char* key, auto& value, bool required) {
    const auto it = meta.find(key);
    if (it == meta.end()) {
      if (required) fail(source, ": checkpoint metadata has no '", key, "' (not a ywb training checkpoint?)");
      return;
    }
    if (!parse(it->second, value))
      fail(source, ": checkpoint metadata '", key, "' = '", it->second, "' is not a number");
  });
  return c;
}

}  // namespace ywb
