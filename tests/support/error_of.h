// What a user is told: the message of the ywb::Error a call throws, or empty when it throws none. Any other
// exception propagates, so a test fails on it instead of matching its text.
#pragma once
#include <QString>
#include <string>
#include <utility>

#include "ywb/error.h"

template <typename F>
std::string errorOf(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const ywb::Error& e) {
    return e.what();
  }
  return {};
}

/// The same message as a QString, for QString::contains in Qt Test checks.
template <typename F>
QString qErrorOf(F&& f) {
  return QString::fromStdString(errorOf(std::forward<F>(f)));
}
