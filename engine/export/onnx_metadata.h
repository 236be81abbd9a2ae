// The metadata an exported ONNX file carries for its readers (ModelProto.metadata_props), in Ultralytics'
// spelling so that either program reads the other's files: class names as a Python dict literal
// ({0: 'person', 1: 'bicycle'}), imgsz as a Python list ([640, 640]), and flags as Python literals (True).
// One owner for writing and reading these values.
// Thread rules: free functions without shared state.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace ywb::onnx_export {

/// {0: 'a', 1: 'b'}: Python's literal of the names (quotes and backslashes escaped).
std::string pythonNames(const std::vector<std::string>& names);

/// The names of a Python dict literal {index: 'name', ...} (single or double quotes, backslash escapes;
/// indices 0..n-1 in any order). Throws ywb::Error naming `where` when the text is not such a literal.
std::vector<std::string> parsePythonNames(const std::string& text, const std::string& where);

/// "[h, w]".
std::string pythonImgsz(int h, int w);

/// [h, w] of "[640, 640]" or "640". Throws ywb::Error naming `where` otherwise.
std::array<int, 2> parsePythonImgsz(const std::string& text, const std::string& where);

}  // namespace ywb::onnx_export
