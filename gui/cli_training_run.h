// Runs `ywb train ... --json` as a child process and turns rank 0's JSON event stream back into the
// trainer's event structs with the engine's codec (ywb/run_record.h). This is how the GUI starts multi-rank
// runs (device=0,1 or device=cpu world=2): the engine's distributed runs need one process per rank, which the
// CLI's local launcher starts; it relays rank 0's stdout unchanged and the other ranks' stderr prefixed with
// "[rank N] ". Thread rules: GUI thread only; output is read from QProcess's signals, never by blocking.
#pragma once
#include <QObject>
#include <QProcess>
#include <QStringList>

#include "train_metatypes.h"
#include "ywb/train_args.h"
#include "ywb/train_events.h"

namespace ywb::gui {

class CliTrainingRun : public QObject {
  Q_OBJECT
 public:
  explicit CliTrainingRun(QObject* parent = nullptr);
  /// Kills a still running child (after asking it to stop) so no rank outlives the GUI.
  ~CliTrainingRun() override;

  /// The ywb executable: $YWB_CLI, next to this program, the build tree's engine/cli/ywb, or on PATH
  /// ("" when none is found).
  static QString findCli();
  /// The arguments after the program: "train", every argument that differs from the defaults as key=value,
  /// "--json".
  static QStringList commandLine(const ywb::TrainArgs& args);

  /// Starts `program` with commandLine(args). False (and failed) when it cannot start.
  bool start(const QString& program, const ywb::TrainArgs& args);
  /// SIGTERM: the launcher forwards it; every rank finishes its step, rank 0 saves `last`.
  void requestStop();
  /// SIGUSR1 toggles pause in the CLI (the launcher forwards it to rank 0, which tells the others).
  void setPaused(bool paused);
  bool running() const { return proc_.state() != QProcess::NotRunning; }
  qint64 pid() const { return proc_.processId(); }

 Q_SIGNALS:
  void phase(ywb::TrainPhase phase, const QString& detail);
  void step(const ywb::StepMetrics& metrics);
  void epoch(const ywb::EpochMetrics& metrics);
  void logLine(const QString& line);
  void finished(const ywb::TrainSummary& summary);
  void failed(const QString& message);
  /// The process has exited (after finished or failed).
  void ended();

 private:
  void readStdout();
  void readStderr();
  void handleEvent(const QByteArray& line);
  void onExit(int code, QProcess::ExitStatus status);

  QProcess proc_;
  QByteArray out_, err_;
  QStringList err_tail_;  // the last stderr lines, for the failure message
  bool got_finished_ = false;
  bool paused_ = false;
};

}  // namespace ywb::gui
