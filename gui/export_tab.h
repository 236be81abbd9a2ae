// The Export tab: a form over `ywb export` (run as a child process so that a crash in an exporter cannot take
// the GUI down), with its output streamed into the tab. Thread rules: GUI thread only (QProcess is async).
#pragma once
#include <QWidget>

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QSpinBox;

namespace ywb::gui {

class ExportTab : public QWidget {
  Q_OBJECT
 public:
  explicit ExportTab(QWidget* parent = nullptr);
  void setWeights(const QString& path);
  /// The command line the Export button runs (program first).
  QStringList commandLine() const;
  /// The `ywb` executable next to this program, else the one on PATH.
  static QString cliPath();

 Q_SIGNALS:
  void exportFinished(int exit_code);
  void logLine(const QString& line);

 private:
  void runExport();

  QLineEdit* weights_ = nullptr;
  QCheckBox* onnx_ = nullptr;
  QCheckBox* safetensors_ = nullptr;
  QSpinBox* imgsz_ = nullptr;
  QSpinBox* opset_ = nullptr;
  QCheckBox* half_ = nullptr;
  QPushButton* run_ = nullptr;
  QPlainTextEdit* output_ = nullptr;
  QProcess* process_ = nullptr;
};

}  // namespace ywb::gui
