// One run folder read back: its results.csv (by the engine's reader, ywb/results_csv.h) as columns of values
// per epoch, its args.yaml (ywb::loadTrainArgsYaml), its log (ywb::readRunLog), and what could not be read.
// Used by the Runs tab's table and overlay and by the Training tab when a finished run is opened again. Works
// for our runs and for Ultralytics' own run folders (8.3/8.4 write the same file names and columns). Thread
// rules: plain value; load() reads small files and may run on any thread.
#pragma once
#include <QMap>
#include <QMetaType>
#include <QStringList>
#include <QVector>

#include "ywb/train_args.h"

namespace ywb::gui {

struct RunResults {
  QString dir;
  QStringList columns;
  QMap<QString, QVector<double>> values;  ///< column name -> value per results.csv row
  int best = -1;  ///< row of the epoch whose weights are in weights/best (ywb::bestResultsRow), -1: none
  QString error;  ///< why a results.csv that exists could not be read
  QString model;  ///< the run's `model` argument from its args.yaml ("yolo11n.yaml"), empty when unreadable
  ywb::TrainArgs args;       ///< the run's args.yaml over the defaults (meaningful when has_args)
  bool has_args = false;     ///< args.yaml was read
  QString args_error;        ///< why an args.yaml that exists could not be read
  QStringList unknown_args;  ///< args.yaml's keys this trainer does not use (Ultralytics' task, mode, ...)
  QString split = "val";     ///< the split the run validated on (ywb::runValidationSplit)
  QStringList log;           ///< the run's log, after loadLog() (ywb::readRunLog: its last MiBs)
  bool has_log = false;      ///< after loadLog(): the run folder has a log (Ultralytics' have none)
  QString log_error;         ///< after loadLog(): why a log that exists could not be read

  /// Reads dir/results.csv and dir/args.yaml; false when results.csv is missing or unreadable (then `error`
  /// says why). args.yaml is read either way.
  bool load(const QString& run_dir);
  /// Reads the run's log (only where it is shown: a run folder's log can be megabytes).
  void loadLog();
  int epochs() const { return values.value("epoch").size(); }
  /// The last epoch number in results.csv (0 when none).
  int lastEpoch() const;
  /// The best epoch's number (1-based, as results.csv writes it), 0 when none was validated.
  int bestEpoch() const;
  /// The dataset's data.yaml from args.yaml: as written when absolute or found from the current folder, else
  /// relative to the run folder or one of its three parents (Ultralytics writes it as given on its command
  /// line, relative to where it ran: runs/detect/NAME is three levels below). "" when not found.
  QString dataYaml() const;
  /// One sentence per part that could not be read (missing or damaged results.csv or args.yaml, a dataset
  /// that is not there); empty when everything was read.
  QStringList problems() const;
};

}  // namespace ywb::gui

Q_DECLARE_METATYPE(ywb::gui::RunResults)
