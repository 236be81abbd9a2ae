#include "core/error.h"

#include <c10/util/Exception.h>

namespace ywb {

std::string describeCurrentException() {
  try {
    throw;
  } catch (const c10::Error& e) {
    // LibTorch messages carry a C++ backtrace that means nothing to users.
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace ywb
