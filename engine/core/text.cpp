#include "core/text.h"

#include <cctype>
#include <filesystem>
#include <sstream>

namespace ywb {

std::string trimmed(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string asciiLower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<bool> switchWord(std::string_view s) {
  const std::string v = asciiLower(std::string(s));
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return std::nullopt;
}

bool hasExtension(const std::string& path, std::initializer_list<const char*> extensions) {
  const std::string ext = asciiLower(std::filesystem::path(path).extension().string());
  if (ext.size() < 2) return false;
  for (const char* e : extensions)
    if (ext.compare(1, std::string::npos, e) == 0) return true;
  return false;
}

std::string commaList(std::initializer_list<const char*> words) {
  std::string s;
  for (const char* w : words) s += (s.empty() ? "" : ", ") + std::string(w);
  return s;
}

std::vector<std::string> csvCells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) out.push_back(trimmed(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace ywb
