#include "train/optimizer_names.h"

#include <sstream>

#include "core/text.h"

namespace ywb {

const std::vector<std::string>& optimizerNames() {
  // Ultralytics 8.4's set (its `optimizer` choices), `auto` and the three the trainer was built around first.
  static const std::vector<std::string> names{"auto",   "SGD",   "AdamW", "MuSGD",  "Adam",
                                              "Adamax", "NAdam", "RAdam", "RMSProp"};
  return names;
}

std::string namedOptimizerList() {
  std::string list;
  for (const auto& n : optimizerNames())
    if (n != "auto") list += (list.empty() ? "" : ", ") + n;
  return list;
}

std::string canonicalOptimizerName(const std::string& name) {
  for (const auto& n : optimizerNames())
    if (asciiLower(n) == asciiLower(name)) return n;
  return name;
}

std::string autoOptimizerRule() {
  std::ostringstream os;
  os << "auto follows Ultralytics 8.4: MuSGD (lr " << kAutoMuSGDLr << ", momentum " << kAutoMomentum
     << ") for more than " << kAutoMuSGDAbove
     << " iterations (epochs x images / max(batch, nbs)), else AdamW (lr " << kAutoAdamWBase << " x "
     << kAutoAdamWScale << " / (" << kAutoAdamWClasses << " + classes), momentum " << kAutoMomentum
     << "); lr0, momentum and warmup_bias_lr are then not used";
  return os.str();
}

}  // namespace ywb
