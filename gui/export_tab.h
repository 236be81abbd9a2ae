// The Export tab: a dialog over the same engine call as `ywb export` (ywb::exportWeights), run on a worker
// thread; the returned report (files, sizes, inputs/outputs, the second runtime's verification) is shown
// in a table and as the text the CLI prints. Thread rules: GUI thread only; one export at a time. Closing
// the tab during an export waits for it to finish (exported files are written atomically).
#pragma once
#include <QWidget>
#include <memory>

#include "worker_threads.h"
#include "ywb/export.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ywb::gui {

class BenchmarkPanel;

class ExportTab : public QWidget {
  Q_OBJECT
 public:
  explicit ExportTab(QWidget* parent = nullptr);
  ~ExportTab() override;

  void setWeights(const QString& path);
  /// The folder or image the ONNX verification runs on ("" = a synthetic image).
  void setVerifySource(const QString& path);
  /// The engine options the form describes (what the Export button runs).
  ExportOptions options() const;
  /// Whether an export is running on the worker thread.
  bool busy() const { return exporting_; }
  /// The last finished export's report; nullptr before the first one or after an error.
  const ExportReport* lastReport() const { return report_.get(); }

 public Q_SLOTS:
  /// Starts exporting with options() off the GUI thread; ignored while busy; without weights it only
  /// says so in the status line.
  void startExport();

 Q_SIGNALS:
  /// Emitted on the GUI thread when an export ends: 0 exported and verified (where a check could run),
  /// 3 a verification failed, 1 an error (the message is in the status line) - the CLI's exit codes.
  void exportFinished(int code);
  void logLine(const QString& line);

 private:
  void buildForm();
  void syncEnabled();
  void showReport(const ExportReport& report);
  void showError(const QString& message);
  struct Outcome;
  /// On the GUI thread, after the worker: shows the outcome and emits exportFinished.
  void finishExport(Outcome& outcome);

  QLineEdit* weights_ = nullptr;
  QCheckBox* safetensors_ = nullptr;
  QCheckBox* onnx_ = nullptr;
  QCheckBox* torchscript_ = nullptr;
  QSpinBox* imgsz_ = nullptr;
  QCheckBox* half_ = nullptr;
  QCheckBox* dynamic_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* opset_ = nullptr;
  QCheckBox* verify_ = nullptr;
  QCheckBox* end2end_ = nullptr;  ///< ExportOptions::end2end (YOLO26's NMS-free graph)
  QLineEdit* source_ = nullptr;
  QSpinBox* verify_images_ = nullptr;
  QPushButton* run_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* files_ = nullptr;
  QPlainTextEdit* output_ = nullptr;
  BenchmarkPanel* benchmark_ = nullptr;  ///< `ywb benchmark` of the same weights
  bool exporting_ = false;
  std::unique_ptr<ExportReport> report_;
  WorkerThreads workers_;  ///< last member: destroyed (cancelled, joined) first
};

}  // namespace ywb::gui
