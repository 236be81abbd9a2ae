#include <cmath>

#include "core/error.h"
#include "ywb/augment.h"

namespace ywb {
namespace {

// Name -> member table, generated from the argument table so names, defaults and ranges cannot drift apart
// from TrainArgs'.
struct Field {
  const char* name;
  double AugmentParams::*member;
  double lo, hi;  // valid range
};

const Field kFields[] = {
#define YWB_AUGMENT_ROW(T_, N_, D_, G_, LO_, HI_, H_) {#N_, &AugmentParams::N_, LO_, HI_},
    YWB_AUGMENT_ARGS(YWB_AUGMENT_ROW)
#undef YWB_AUGMENT_ROW
};

}  // namespace

bool AugmentParams::set(const std::string& name, double value) {
  for (const auto& f : kFields) {
    if (name == f.name) {
      this->*f.member = value;
      return true;
    }
  }
  return false;
}

double AugmentParams::get(const std::string& name) const {
  for (const auto& f : kFields) {
    if (name == f.name) return this->*f.member;
  }
  fail("unknown augmentation setting '", name, "'");
}

const std::vector<std::string>& AugmentParams::names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (const auto& f : kFields) v.emplace_back(f.name);
    return v;
  }();
  return n;
}

void AugmentParams::validate() const {
  for (const auto& f : kFields) {
    const double v = this->*f.member;
    if (!std::isfinite(v) || v < f.lo || v > f.hi) {
      fail("augmentation setting ", f.name, "=", v, " is outside [", f.lo, ", ", f.hi, "]");
    }
  }
}

AugmentParams augmentParamsOf(const TrainArgs& args) {
  AugmentParams p;
#define YWB_AUGMENT_COPY(T_, N_, D_, G_, LO_, HI_, H_) p.N_ = args.N_;
  YWB_AUGMENT_ARGS(YWB_AUGMENT_COPY)
#undef YWB_AUGMENT_COPY
  return p;
}

void applyAugmentParams(const AugmentParams& params, TrainArgs& args) {
#define YWB_AUGMENT_APPLY(T_, N_, D_, G_, LO_, HI_, H_) args.N_ = params.N_;
  YWB_AUGMENT_ARGS(YWB_AUGMENT_APPLY)
#undef YWB_AUGMENT_APPLY
}

AugmentParams AugmentParams::none() {
  AugmentParams p;
  for (const auto& f : kFields) p.*f.member = 0.0;
  return p;
}

}  // namespace ywb
