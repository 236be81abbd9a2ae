// Samples CPU, RAM and GPUs (NVML) on its own thread once per interval and emits the readings.
// Thread rules: lives on a private QThread; start()/stop() and the signal are safe from the GUI thread
// (the signal arrives queued).
#pragma once
#include <QObject>
#include <QThread>
#include <QTimer>
#include <memory>

#include "ywb/system_monitor.h"

Q_DECLARE_METATYPE(ywb::SystemSample)

namespace ywb::gui {

class SystemSampler : public QObject {
  Q_OBJECT
 public:
  explicit SystemSampler(int interval_ms = 1000, QObject* parent = nullptr);
  ~SystemSampler() override;
  /// Why NVML is unavailable ("" when GPU readings are live). Valid after construction.
  QString nvmlStatus() const { return nvml_status_; }

 Q_SIGNALS:
  /// `seconds` since the sampler started.
  void sampled(double seconds, const ywb::SystemSample& sample);

 private:
  QThread thread_;
  QObject* worker_ = nullptr;  // lives on thread_
  QString nvml_status_;
};

}  // namespace ywb::gui
