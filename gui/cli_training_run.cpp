#include "cli_training_run.h"

#include <signal.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "ywb/run_record.h"

namespace ywb::gui {
CliTrainingRun::CliTrainingRun(QObject* parent) : QObject(parent) {
  proc_.setProcessChannelMode(QProcess::SeparateChannels);
  connect(&proc_, &QProcess::readyReadStandardOutput, this, &CliTrainingRun::readStdout);
  connect(&proc_, &QProcess::readyReadStandardError, this, &CliTrainingRun::readStderr);
  connect(&proc_, &QProcess::finished, this, &CliTrainingRun::onExit);
  connect(&proc_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      Q_EMIT failed(tr("could not start %1: %2").arg(proc_.program(), proc_.errorString()));
      Q_EMIT ended();
    }
  });
}

CliTrainingRun::~CliTrainingRun() {
  if (!running()) return;
  disconnect(&proc_, nullptr, this, nullptr);
  proc_.terminate();  // the ranks save `last` and exit
  if (!proc_.waitForFinished(30000)) {
    proc_.kill();
    proc_.waitForFinished(5000);
  }
}

QString CliTrainingRun::findCli() {
  const QString env = qEnvironmentVariable("YWB_CLI");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QDir app(QCoreApplication::applicationDirPath());
  // installed side by side; the build tree (gui/yolo-workbench, tests/gui/test_*, engine/cli/ywb)
  for (const char* rel : {"ywb", "../engine/cli/ywb", "../../engine/cli/ywb"}) {
    const QString p = app.absoluteFilePath(QString::fromLatin1(rel));
    if (QFileInfo(p).isExecutable() && QFileInfo(p).isFile()) return QFileInfo(p).canonicalFilePath();
  }
  return QStandardPaths::findExecutable("ywb");
}

QStringList CliTrainingRun::commandLine(const ywb::TrainArgs& args) {
  QStringList out{"train"};
  for (const auto& [key, value] : ywb::changedTrainArgs(args))
    out << QString::fromStdString(key) + "=" + QString::fromStdString(value);
  out << "--json";
  return out;
}

bool CliTrainingRun::start(const QString& program, const ywb::TrainArgs& args) {
  if (running()) return false;
  out_.clear();
  err_.clear();
  err_tail_.clear();
  got_finished_ = false;
  paused_ = false;
  const QStringList argv = commandLine(args);
  Q_EMIT logLine(tr("$ %1 %2").arg(program, argv.join(' ')));
  proc_.start(program, argv);
  return true;
}

void CliTrainingRun::requestStop() {
  if (running()) proc_.terminate();
}

void CliTrainingRun::setPaused(bool paused) {
  if (!running() || paused == paused_) return;
  paused_ = paused;
  ::kill(pid_t(proc_.processId()), SIGUSR1);
}

void CliTrainingRun::readStdout() {
  out_ += proc_.readAllStandardOutput();
  for (qsizetype nl; (nl = out_.indexOf('\n')) >= 0;) {
    const QByteArray line = out_.left(nl).trimmed();
    out_.remove(0, nl + 1);
    if (!line.isEmpty()) handleEvent(line);
  }
}

void CliTrainingRun::readStderr() {
  err_ += proc_.readAllStandardError();
  for (qsizetype nl; (nl = err_.indexOf('\n')) >= 0;) {
    const QString line = QString::fromUtf8(err_.left(nl)).trimmed();
    err_.remove(0, nl + 1);
    if (line.isEmpty()) continue;
    err_tail_ << line;
    while (err_tail_.size() > 5) err_tail_.removeFirst();
    Q_EMIT logLine(line);
  }
}

void CliTrainingRun::handleEvent(const QByteArray& line) {
  // The engine's codec reads what `ywb train --json` wrote with it: every field arrives, none is guessed.
  const ywb::TrainEvent e = ywb::parseTrainEvent(line.toStdString());
  switch (e.kind) {
    case ywb::TrainEvent::Kind::None:
      Q_EMIT logLine(QString::fromUtf8(line));  // not an event: show it as it is
      break;
    case ywb::TrainEvent::Kind::Phase:
      Q_EMIT phase(e.phase, QString::fromStdString(e.text));
      break;
    case ywb::TrainEvent::Kind::Log:
      Q_EMIT logLine(QString::fromStdString(e.text));
      break;
    case ywb::TrainEvent::Kind::Step:
      Q_EMIT step(e.step);
      break;
    case ywb::TrainEvent::Kind::Epoch:
      Q_EMIT epoch(e.epoch);
      break;
    case ywb::TrainEvent::Kind::Finished:
      got_finished_ = true;
      Q_EMIT finished(e.summary);
      break;
  }
}

void CliTrainingRun::onExit(int code, QProcess::ExitStatus status) {
  readStdout();
  readStderr();
  if (!got_finished_) {
    const QString how = status == QProcess::CrashExit ? tr("crashed") : tr("exited with status %1").arg(code);
    Q_EMIT failed(tr("ywb train %1 before the run finished%2")
                      .arg(how, err_tail_.isEmpty() ? QString() : ": " + err_tail_.join(" | ")));
  }
  Q_EMIT ended();
}

}  // namespace ywb::gui
