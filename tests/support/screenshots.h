// Where GUI tests save their screenshots (looked at by people, kept by gpu-check's report): the build's
// screenshots/ folder, or YWB_SCREENSHOT_DIR when set. The folder is made when missing.
#pragma once
#include <QDir>
#include <QString>

inline QString shotsDir() {
  const QString shots = qEnvironmentVariable("YWB_SCREENSHOT_DIR", QString(YW_BINARY_DIR) + "/screenshots");
  QDir().mkpath(shots);
  return shots;
}
