// The Export tab's benchmark (`ywb benchmark`, Ultralytics' benchmark mode): the weights exported to every
// format this program writes and each export validated on a dataset (ywb::benchmarkFormats, on a worker
// thread), a row per format as it finishes: size, mAP50-95, mAP50, time per image, runtime, or why it
// failed. The exports and benchmarks.txt / benchmarks.json go to a new runs/detect/benchmark folder, as the
// command writes them. Thread rules: GUI thread only; one benchmark at a time; closing stops it after the
// current format.
#pragma once
#include <QWidget>
#include <vector>

#include "worker_threads.h"
#include "ywb/format_benchmark.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ywb::gui {

class BenchmarkPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BenchmarkPanel(QWidget* parent = nullptr);
  ~BenchmarkPanel() override;

  /// The weights to benchmark (the Export tab's).
  void setWeights(const QString& path) { weights_ = path; }
  void setData(const QString& yaml);
  bool busy() const { return running_; }
  /// The rows shown so far (the last benchmark's).
  const std::vector<FormatBenchmarkRow>& rows() const { return rows_; }
  /// The folder the last benchmark wrote (its exports and tables); empty before the first.
  const QString& folder() const { return folder_; }

 public Q_SLOTS:
  /// Starts the benchmark off the GUI thread; ignored while busy; without weights or data it only says so.
  void start();

 Q_SIGNALS:
  /// Emitted on the GUI thread when a benchmark ends: 0 every format ran, 3 some format failed (its row
  /// says why), 1 an error (the weights themselves did not validate; the message is in the status line).
  void finished(int code);
  void logLine(const QString& line);

 private:
  void addRow(const FormatBenchmarkRow& row);
  void finish(const QString& error);

  QString weights_, folder_;
  QLineEdit* data_ = nullptr;
  QPushButton* run_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::vector<FormatBenchmarkRow> rows_;
  bool running_ = false;
  WorkerThreads workers_;  ///< last member: destroyed (cancelled, joined) first
};

}  // namespace ywb::gui
