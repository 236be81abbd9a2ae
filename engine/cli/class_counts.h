// What an image's line says was found: "2 stars, 1 ring", as Ultralytics' predict line reads (`ywb predict`,
// `ywb quickstart`'s predictions).
// Thread rules: pure functions.
#pragma once
#include <string>
#include <vector>

#include "ywb/metrics.h"

namespace ywb::cli {

/// An English plural of a class name: "cross" -> "crosses", "pony" -> "ponies", "star" -> "stars"
/// (Ultralytics appends "s" to every name: "3 crosss").
std::string plural(const std::string& name);

/// The count of each class found, in class order ("2 stars, 1 ring"; a class without a name "class 7");
/// "no detections" when there are none.
std::string classCounts(const std::vector<DetBox>& boxes, const std::vector<std::string>& names);

}  // namespace ywb::cli
