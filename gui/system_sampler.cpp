#include "system_sampler.h"

#include <QElapsedTimer>

namespace ywb::gui {
namespace {

// The object that actually samples; created and destroyed on the sampler thread.
class SamplerWorker : public QObject {
 public:
  SamplerWorker(SystemSampler* owner, int interval_ms) : owner_(owner), timer_(this) {
    timer_.setInterval(interval_ms);
    QObject::connect(&timer_, &QTimer::timeout, this, [this] { tick(); });
    clock_.start();
  }
  void start() {
    tick();
    timer_.start();
  }

 private:
  void tick() {
    const SystemSample s = monitor_.sample();
    Q_EMIT owner_->sampled(clock_.elapsed() / 1000.0, s);
  }
  SystemSampler* owner_;
  QTimer timer_;
  QElapsedTimer clock_;
  SystemMonitor monitor_;
};

}  // namespace

SystemSampler::SystemSampler(int interval_ms, QObject* parent) : QObject(parent) {
  qRegisterMetaType<ywb::SystemSample>("ywb::SystemSample");
  {
    SystemMonitor probe;  // cheap: tells the GUI up front whether GPU readings will come
    nvml_status_ = QString::fromStdString(probe.nvmlStatus());
  }
  auto* worker = new SamplerWorker(this, interval_ms);
  worker->moveToThread(&thread_);
  worker_ = worker;
  connect(&thread_, &QThread::started, worker, [worker] { worker->start(); });
  connect(&thread_, &QThread::finished, worker, &QObject::deleteLater);
  thread_.setObjectName("ywb-system-sampler");
  thread_.start(QThread::LowPriority);
}

SystemSampler::~SystemSampler() {
  thread_.quit();
  thread_.wait();
}

}  // namespace ywb::gui
