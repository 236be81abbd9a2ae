// The optimizer names `optimizer=` accepts, in one place (the argument table's choices, the GUI's list and
// chooseOptimizer all read it). Torch-free.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

// Ultralytics 8.4's `auto` (chooseOptimizer applies it; autoOptimizerRule says it in words): MuSGD above
// kAutoMuSGDAbove iterations, else AdamW with lr round(kAutoAdamWBase x kAutoAdamWScale / (kAutoAdamWClasses
// + classes), 6); both with momentum kAutoMomentum.
inline constexpr int64_t kAutoMuSGDAbove = 10000;
inline constexpr double kAutoMuSGDLr = 0.01, kAutoMomentum = 0.9;
inline constexpr double kAutoAdamWBase = 0.002, kAutoAdamWScale = 5, kAutoAdamWClasses = 4;

/// "auto", then every optimizer by its Ultralytics name.
const std::vector<std::string>& optimizerNames();

/// optimizerNames() but auto, comma-separated ("SGD, AdamW, ..."): for help texts and error messages.
std::string namedOptimizerList();

/// The name of optimizerNames() that `name` spells in any letter case (Ultralytics compares names without
/// case: optimizer=adamw is AdamW), or `name` itself when none does.
std::string canonicalOptimizerName(const std::string& name);

/// What `optimizer=auto` picks, in words (the optimizer's help text), stated beside chooseOptimizer's rule.
std::string autoOptimizerRule();

}  // namespace ywb
