#include "export/onnx_metadata.h"

#include <cctype>
#include <map>

#include "core/error.h"

namespace ywb::onnx_export {
namespace {

// A cursor over a Python literal; every error names `where` and the offset.
struct Cursor {
  const std::string& s;
  const std::string& where;
  size_t i = 0;

  void skipSpace() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  [[noreturn]] void bad(const std::string& what) const {
    fail(where, ": ", what, " at character ", i + 1, " of ", s.size() > 60 ? s.substr(0, 60) + "..." : s);
  }
  bool eat(char c) {
    skipSpace();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) bad(std::string("expected '") + c + "'");
  }
  long long integer() {
    skipSpace();
    const size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start || i - start > 9) bad("expected a non-negative integer");
    return std::stoll(s.substr(start, i - start));
  }
  std::string quoted() {
    skipSpace();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) bad("expected a quoted name");
    const char q = s[i++];
    std::string out;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i++];
    }
    if (i >= s.size()) bad("unterminated name");
    ++i;
    return out;
  }
};

}  // namespace

std::string pythonNames(const std::vector<std::string>& names) {
  std::string s = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    std::string n;
    for (char c : names[i]) n += (c == '\'' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    s += (i ? ", " : "") + std::to_string(i) + ": '" + n + "'";
  }
  return s + "}";
}

std::vector<std::string> parsePythonNames(const std::string& text, const std::string& where) {
  Cursor c{text, where};
  std::map<long long, std::string> byIndex;
  c.expect('{');
  if (!c.eat('}')) {
    do {
      const long long k = c.integer();
      c.expect(':');
      if (!byIndex.emplace(k, c.quoted()).second) c.bad("class " + std::to_string(k) + " named twice");
    } while (c.eat(','));
    c.expect('}');
  }
  c.skipSpace();
  if (c.i != text.size()) c.bad("unexpected text after the names");
  std::vector<std::string> names;
  for (const auto& [k, v] : byIndex) {
    if (k != (long long)names.size()) fail(where, ": class indices are not 0..", byIndex.size() - 1);
    names.push_back(v);
  }
  if (names.empty()) fail(where, ": no class names");
  return names;
}

std::string pythonImgsz(int h, int w) {
  return "[" + std::to_string(h) + ", " + std::to_string(w) + "]";
}

std::array<int, 2> parsePythonImgsz(const std::string& text, const std::string& where) {
  Cursor c{text, where};
  std::array<int, 2> hw{};
  if (c.eat('[') || c.eat('(')) {
    hw[0] = int(c.integer());
    c.expect(',');
    hw[1] = int(c.integer());
    if (!c.eat(']')) c.expect(')');
  } else {
    hw[0] = hw[1] = int(c.integer());
  }
  c.skipSpace();
  if (c.i != text.size()) c.bad("unexpected text after the size");
  if (hw[0] < 1 || hw[1] < 1) fail(where, ": image size must be positive, not ", text);
  return hw;
}

}  // namespace ywb::onnx_export
