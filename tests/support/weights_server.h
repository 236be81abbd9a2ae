// A real HTTP server on loopback for the weights download tests: tests/support/weights_server.py (Python's
// http.server) serving a folder under /<mode>/<file> (modes: ok, cut, truncated, html, stall, slow, norange;
// see the script). It logs every request it receives, so a test can count them and see Range headers.
#pragma once
#include <QProcess>
#include <QStringList>
#include <QtTest>

class WeightsServer {
 public:
  explicit WeightsServer(const QString& root) {
    proc_.setProgram("python3");
    proc_.setArguments({QStringLiteral(YW_SOURCE_DIR "/tests/support/weights_server.py"), root});
    proc_.start();
    if (!proc_.waitForStarted(10000)) return;
    while (port_ == 0 && proc_.waitForReadyRead(10000)) {
      while (proc_.canReadLine()) {
        const QString line = QString::fromUtf8(proc_.readLine()).trimmed();
        if (line.startsWith("PORT ")) port_ = line.mid(5).toInt();
      }
    }
  }
  ~WeightsServer() {
    proc_.kill();
    proc_.waitForFinished(5000);
  }
  WeightsServer(const WeightsServer&) = delete;
  WeightsServer& operator=(const WeightsServer&) = delete;

  int port() const { return port_; }
  /// The base address of one mode, e.g. http://127.0.0.1:PORT/ok
  std::string base(const char* mode) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + mode;
  }
  /// Every request received so far, as "REQ <path> <Range or ->" lines, in order.
  QStringList requests() {
    proc_.waitForReadyRead(200);  // the server prints before it answers; a short wait collects the last line
    while (proc_.canReadLine()) log_ << QString::fromUtf8(proc_.readLine()).trimmed();
    return log_;
  }

 private:
  QProcess proc_;
  int port_ = 0;
  QStringList log_;
};
