// The engine's one exception type. Thread rules: plain value type, safe to copy between threads.
#pragma once
#include <stdexcept>
#include <string>

namespace ywb {

/// An error with a short, actionable message: what is wrong, where (file, line), what to do.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ywb
