// Named state dicts of LibTorch modules with PyTorch/Ultralytics key names and order, and loading of
// named tensors into a module: strict (exact match) or transfer (by name and shape, for fine-tuning).
// Thread rules: the module must not be used by another thread while loading.
#pragma once
#include <torch/nn/module.h>

#include <string>
#include <utility>
#include <vector>

namespace ywb {

/// What loadStateDict did. total = the module's state-dict entries (parameters and buffers).
struct StateDictReport {
  int transferred = 0;
  int total = 0;
  std::vector<std::string> missing;     ///< module entries absent from the tensors
  std::vector<std::string> unexpected;  ///< tensors the module has no entry for
  std::vector<std::string>
      mismatched;  ///< "name: tensors [..] F32 vs module [..] Float" (shape or dtype kind)
  /// "transferred X/Y tensors" (Ultralytics' wording), plus counts of what was skipped.
  std::string summary() const;
};

/// The module's parameters and buffers in PyTorch state_dict order: each module's own parameters, then
/// its own buffers (registration order), then its children depth-first; names joined with '.'.
/// Undefined tensors (e.g. a disabled bias) are left out. The tensors alias the module's storage.
std::vector<std::pair<std::string, at::Tensor>> namedStateDict(const torch::nn::Module& module);

/// Copies `tensors` into the module's parameters and buffers by name, converting dtype (and device).
/// strict: every module entry must be present with the same shape and no extra tensors may exist, else a
/// ywb::Error lists every problem by tensor name and nothing is copied. Not strict: copies the entries whose
/// name and shape match, leaves the others as they are and reports them.
/// A floating-point tensor never loads into an integer entry or vice versa (counted as mismatched).
StateDictReport loadStateDict(torch::nn::Module& module,
                              const std::vector<std::pair<std::string, at::Tensor>>& tensors, bool strict);

}  // namespace ywb
