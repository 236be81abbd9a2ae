// Small text rules shared by the parsers of what users type and write (arguments, YAML, CSV, file names).
// Torch-free: the fuzz targets compile it with the parsers (tests/fuzz/CMakeLists.txt).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ywb {

/// `s` without leading and trailing white space (std::isspace: space, tab, CR, LF, VT, FF).
std::string trimmed(std::string_view s);

/// `s` with its ASCII letters in lower case; every other byte (UTF-8 included) unchanged.
std::string asciiLower(std::string s);

/// A switch's value as typed on a command line or in a form: true, yes, on, 1 / false, no, off, 0 in any
/// letter case (Ultralytics' CLI reads the same words); nothing for any other text.
std::optional<bool> switchWord(std::string_view s);

/// Whether a file name's extension (after its last dot, in any letter case) is one of `extensions` (given
/// lower-case, without the dot): the rule behind "is this an image / a video" (data/image_list.h,
/// data/video_io.h). A name without an extension, or a dot-file's own name, has none.
bool hasExtension(const std::string& path, std::initializer_list<const char*> extensions);
/// The cells of one CSV line (comma-separated, no quoting, as results.csv and tune_results.csv are written),
/// each trimmed; a trailing comma ends in an empty cell.
std::vector<std::string> csvCells(const std::string& line);

/// Words as messages list them: "jpg, jpeg, png".
std::string commaList(std::initializer_list<const char*> words);

}  // namespace ywb
