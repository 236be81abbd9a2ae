#include "core/yaml_text.h"

#include "core/atomic_file.h"
#include "core/error.h"

namespace ywb {

YAML::Node parseYamlText(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(path, ":", e.mark.line + 1, ":", e.mark.column + 1, ": broken YAML: ", e.msg);
  }
}

YAML::Node loadYamlFile(const std::string& path) {
  return parseYamlText(readFile(path), path);
}

}  // namespace ywb
