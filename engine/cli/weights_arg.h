// The CLI's side of pretrained weights by name: a weights argument resolved with ywb::resolveWeights, and a
// progress bar on stderr while an official file downloads.
// Thread rules: call from the main thread.
#pragma once
#include <string>

namespace ywb::cli {

/// `value` as ywb::resolveWeights turns it into a file (an official name not yet cached is downloaded, with a
/// progress bar on stderr when it is a terminal, a line per 10% otherwise; nothing is printed under --json).
std::string resolveWeightsArg(const std::string& value, bool json);

}  // namespace ywb::cli
