// Internal helpers for raising ywb::Error and translating LibTorch errors at the API boundary.
#pragma once
#include <sstream>
#include <string>
#include <utility>

#include "ywb/error.h"

namespace ywb {

/// Builds a message from streamable parts and throws ywb::Error.
template <typename... Parts>
[[noreturn]] void fail(Parts&&... parts) {
  std::ostringstream os;
  (os << ... << std::forward<Parts>(parts));
  throw Error(os.str());
}

/// Runs f, turning c10::Error / std::exception into ywb::Error with `context` prefixed.
/// Use at public API boundaries so callers never see torch types or backtraces.
std::string describeCurrentException();

template <typename F>
auto guarded(const char* context, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (...) {
    throw Error(std::string(context) + ": " + describeCurrentException());
  }
}

}  // namespace ywb
