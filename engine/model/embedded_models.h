// Model YAML files from resources/models/, compiled into the engine so the binary needs no data files.
// The definitions are generated at configure time (engine/model/CMakeLists.txt). Thread-safe (constants).
#pragma once
#include <string>
#include <vector>

namespace ywb::model {

struct EmbeddedModel {
  const char* name;  ///< file name, e.g. "yolov8.yaml"
  const char* text;  ///< the file's bytes
};

/// All embedded model files.
const std::vector<EmbeddedModel>& embeddedModels();

/// The embedded file with this exact file name, or nullptr.
const EmbeddedModel* findEmbeddedModel(const std::string& name);

}  // namespace ywb::model
