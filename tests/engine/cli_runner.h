// Runs the `ywb` command line as a user does (a real process) and collects its exit code and output.
#pragma once
#include <QByteArray>
#include <QProcess>
#include <QStringList>

struct CliResult {
  int code = -1;  ///< exit status; -1 when it crashed or did not finish in time
  QByteArray out, err;
};

inline CliResult ywbRun(const QStringList& args, int timeout_ms = 240000) {
  QProcess p;
  p.start(YW_CLI_PATH, args);
  p.waitForFinished(timeout_ms);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}
