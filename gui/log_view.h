// The log console dock: timestamped lines from the engine and the GUI. Thread rules: GUI thread only;
// other threads reach it through queued signals.
#pragma once
#include <QPlainTextEdit>

namespace ywb::gui {

class LogView : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit LogView(QWidget* parent = nullptr);
 public Q_SLOTS:
  void appendLine(const QString& line);
  /// Appends lines as they are, without the time (a run's log file read back has its own).
  void appendLines(const QStringList& lines);
};

}  // namespace ywb::gui
