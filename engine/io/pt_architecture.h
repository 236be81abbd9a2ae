// What an Ultralytics checkpoint's pickled modules say about its architecture beyond its YAML dict: the
// module classes it holds, which Convs have no activation (8.4's SPPF cv1; attention projections) and the
// 8.4 features found. The model is rebuilt from the YAML and then checked against this (train/model_loader).
// Torch-free. Thread rules: pure functions; call from any thread.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ywb/weights.h"

namespace ywb {

/// Metadata keys written for an Ultralytics checkpoint (format "ultralytics-pt"); owned by ywb/weights.h.
inline constexpr const char* kPtArchitectureKey = weights_key::kPtArchitecture;  ///< JSON of PtArchitecture
inline constexpr const char* kPtFeaturesKey = weights_key::kPtFeatures;          ///< readable, "; "-separated

struct PtArchitecture {
  std::map<std::string, std::string> classes;  ///< full class name ("ultralytics.nn.modules.block.SPPF")
                                               ///< -> the first module path holding it ("model.9")
  std::vector<std::string> no_activation;      ///< Conv/DWConv modules whose `act` is nn.Identity
  std::map<std::string, std::string>
      other_activation;  ///< Conv path -> `act` class, neither SiLU nor Identity
  /// The Ultralytics module form: "8.4" when an SPPF's cv1 has no activation, "8.3" when it has SiLU, empty
  /// without SPPF.
  std::string modules_form;
  std::vector<std::string> features;  ///< 8.4 features found, e.g. "end-to-end head (one2one_cv2/cv3)"
};

/// Describes the module tree given as (path, class) pairs in walk order (path "" = the root model,
/// "model.9.cv1.act", ...), classes as "module.Name".
PtArchitecture describePtModules(const std::vector<std::pair<std::string, std::string>>& modules);

std::string ptArchitectureJson(const PtArchitecture& a);
/// Parses ptArchitectureJson's text; throws ywb::Error naming `source` when it is not.
PtArchitecture parsePtArchitecture(const std::string& json, const std::string& source);

}  // namespace ywb
