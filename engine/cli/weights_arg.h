// The CLI's side of pretrained weights by name: a weights argument resolved with ywb::resolveWeights, and a
// progress bar on stderr while an official file downloads.
// Thread rules: call from the main thread.
#pragma once
#include <string>

#include "cli/args.h"

namespace ywb::cli {

/// The weights a verb is given: `weights=`, or `model=`, the name Ultralytics' CLI uses for it (`yolo val
/// model=best.pt`). Throws ywb::Error when both are given and differ. "" when neither is.
std::string weightsValue(const Args& a);

/// `value` as ywb::resolveWeights turns it into a file (an official name not yet cached is downloaded, with a
/// progress bar on stderr when it is a terminal, a line per 10% otherwise; nothing is printed under --json).
std::string resolveWeightsArg(const std::string& value, bool json);

}  // namespace ywb::cli
