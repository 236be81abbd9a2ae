// The System dock: the environment doctor's summary and a live chart of CPU, RAM, GPU load and GPU memory.
// Thread rules: GUI thread only; the doctor runs on a short-lived thread and reports back queued.
#pragma once
#include <QMap>
#include <QWidget>

#include "ywb/doctor.h"
#include "ywb/system_monitor.h"

class QCustomPlot;
class QTextBrowser;
class QPushButton;

namespace ywb::gui {

class SystemSampler;

class SystemPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SystemPanel(QWidget* parent = nullptr);
  ~SystemPanel() override;
  QCustomPlot* chart() const { return chart_; }
  /// Number of samples plotted so far (for tests and the status bar).
  int samplesPlotted() const { return samples_; }
  /// Labels the GPU series with the rank that uses each GPU for a run with these `device` and `world`
  /// arguments (device=1,0 -> GPU1 is rank 0, GPU0 rank 1); a single-process or CPU run clears the labels.
  void setRunDevices(const QString& device, int world);

 public Q_SLOTS:
  void runDoctorAsync();

 Q_SIGNALS:
  void doctorFinished(bool ok);
  void logLine(const QString& line);

 private:
  void addSample(double seconds, const ywb::SystemSample& s);
  void showDoctor(const ywb::DoctorReport& r);
  void ensureGpuGraphs(size_t gpus);
  void nameGpuGraphs();

  QTextBrowser* summary_ = nullptr;
  QPushButton* rerun_ = nullptr;
  QCustomPlot* chart_ = nullptr;
  SystemSampler* sampler_ = nullptr;
  size_t gpu_graphs_ = 0;
  QMap<int, int> gpu_rank_;  // GPU index -> rank of the current multi-rank run
  int samples_ = 0;
  bool doctor_running_ = false;
};

}  // namespace ywb::gui

Q_DECLARE_METATYPE(ywb::DoctorReport)
