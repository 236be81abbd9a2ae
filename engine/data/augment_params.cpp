#include <cmath>

#include "core/error.h"
#include "ywb/augment.h"

namespace ywb {
namespace {

// Name -> member table; one place so set/get/names cannot drift apart.
struct Field {
  const char* name;
  double AugmentParams::*member;
  double lo, hi;  // valid range
};

const Field kFields[] = {
    {"hsv_h", &AugmentParams::hsv_h, 0, 1},         {"hsv_s", &AugmentParams::hsv_s, 0, 1},
    {"hsv_v", &AugmentParams::hsv_v, 0, 1},         {"degrees", &AugmentParams::degrees, 0, 180},
    {"translate", &AugmentParams::translate, 0, 1}, {"scale", &AugmentParams::scale, 0, 10},
    {"shear", &AugmentParams::shear, 0, 90},        {"perspective", &AugmentParams::perspective, 0, 0.01},
    {"flipud", &AugmentParams::flipud, 0, 1},       {"fliplr", &AugmentParams::fliplr, 0, 1},
    {"mosaic", &AugmentParams::mosaic, 0, 1},       {"mixup", &AugmentParams::mixup, 0, 1},
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

AugmentParams AugmentParams::none() {
  AugmentParams p;
  for (const auto& f : kFields) p.*f.member = 0.0;
  return p;
}

}  // namespace ywb
