// The optimizer names `optimizer=` accepts, in one place (the argument table's choices, the GUI's list and
// chooseOptimizer all read it). Torch-free.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// "auto", then every optimizer by its Ultralytics name.
const std::vector<std::string>& optimizerNames();

/// What `optimizer=auto` picks, in words (the optimizer's help text), stated beside chooseOptimizer's rule.
std::string autoOptimizerRule();

}  // namespace ywb
