// YAML text parsed with errors that say where: every settings file the engine reads (data.yaml, args.yaml,
// tune spaces, tracker files) is parsed here, so a syntax error reads the same everywhere. Thread rules:
// pure functions.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

namespace ywb {

/// `text` parsed. A syntax error throws ywb::Error "<path>:<line>:<column>: broken YAML: <yaml-cpp's
/// message>" (line and column from 1).
YAML::Node parseYamlText(const std::string& text, const std::string& path);

/// The file read (readFile: an unreadable file throws naming it) and parsed by parseYamlText.
YAML::Node loadYamlFile(const std::string& path);

}  // namespace ywb
