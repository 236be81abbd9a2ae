#include "system_panel.h"

#include <qcustomplot.h>
#include <QCoreApplication>
#include <QPointer>
#include <QPushButton>
#include <QTextBrowser>
#include <QThread>
#include <QVBoxLayout>

#include "metric_chart.h"
#include "system_sampler.h"
#include "ywb/dist.h"

namespace ywb::gui {
namespace {

constexpr double kWindowSeconds = 300;  // the chart shows the last five minutes

QString gib(int64_t bytes) {
  return bytes < 0 ? "?" : QString::number(double(bytes) / (1 << 30), 'f', 1) + " GiB";
}

// Doctor threads still running when the application object goes away are waited for then (a post
// routine): the doctor times a model in LibTorch, and a thread running on into static destruction corrupts
// the heap at exit. Closing a window does not wait.
QList<QPointer<QThread>>& doctorThreads() {
  static QList<QPointer<QThread>> threads;
  return threads;
}

void waitForDoctors() {
  for (const QPointer<QThread>& t : doctorThreads())
    if (t) t->wait();
  doctorThreads().clear();
}

}  // namespace

SystemPanel::SystemPanel(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<ywb::DoctorReport>("ywb::DoctorReport");
  auto* layout = new QVBoxLayout(this);
  summary_ = new QTextBrowser(this);
  summary_->setObjectName("doctorSummary");
  summary_->setMinimumHeight(170);
  summary_->setText(tr("Checking the environment..."));
  rerun_ = new QPushButton(tr("Run environment doctor again"), this);
  connect(rerun_, &QPushButton::clicked, this, &SystemPanel::runDoctorAsync);

  chart_ = new QCustomPlot(this);
  chart_->setObjectName("systemChart");
  chart_->setMinimumHeight(220);
  chart_->xAxis->setLabel(tr("seconds"));
  chart_->yAxis->setLabel(tr("% of capacity"));
  chart_->yAxis->setRange(0, 100);
  chart_->legend->setVisible(true);
  chart_->legend->setFont(QFont(font().family(), 8));
  chart_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  for (const QString& name : {tr("CPU"), tr("RAM")}) {
    QCPGraph* g = chart_->addGraph();
    g->setName(name);
    g->setPen(QPen(MetricChart::color(chart_->graphCount() - 1), 2));
  }
  MetricChart::styleDark(chart_);

  layout->addWidget(summary_, 2);
  layout->addWidget(rerun_);
  layout->addWidget(chart_, 3);

  sampler_ = new SystemSampler(1000, this);
  connect(sampler_, &SystemSampler::sampled, this, &SystemPanel::addSample);
  runDoctorAsync();
}

SystemPanel::~SystemPanel() = default;

void SystemPanel::ensureGpuGraphs(size_t gpus) {
  if (gpu_graphs_ >= gpus) return;
  for (; gpu_graphs_ < gpus; ++gpu_graphs_) {
    for (int memory = 0; memory < 2; ++memory) {
      QCPGraph* g = chart_->addGraph();
      g->setPen(QPen(MetricChart::color(chart_->graphCount() - 1), 2, memory ? Qt::DashLine : Qt::SolidLine));
    }
  }
  nameGpuGraphs();
}

void SystemPanel::nameGpuGraphs() {
  for (int i = 0; i < int(gpu_graphs_); ++i) {
    const QString rank = gpu_rank_.contains(i) ? tr(" (rank %1)").arg(gpu_rank_.value(i)) : QString();
    chart_->graph(2 + 2 * i)->setName(tr("GPU%1 load").arg(i) + rank);
    chart_->graph(3 + 2 * i)->setName(tr("GPU%1 memory").arg(i) + rank);
  }
  chart_->replot(QCustomPlot::rpQueuedReplot);
}

void SystemPanel::setRunDevices(const QString& device, int world) {
  gpu_rank_.clear();
  try {
    const std::string d = device.toStdString();
    const int ranks = ywb::localRanksRequested(d, world);
    for (int r = 0; ranks > 1 && r < ranks; ++r) {
      const int gpu = ywb::deviceIndexForLocalRank(d, r);
      if (gpu >= 0) gpu_rank_[gpu] = r;
    }
  } catch (const std::exception&) {
    gpu_rank_.clear();  // an invalid device list: the run itself reports it
  }
  nameGpuGraphs();
}

void SystemPanel::addSample(double t, const ywb::SystemSample& s) {
  ensureGpuGraphs(s.gpus.size());
  chart_->graph(0)->addData(t, s.cpu_percent);
  chart_->graph(1)->addData(t, s.ram_total > 0 ? 100.0 * double(s.ram_used) / double(s.ram_total) : 0);
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    const auto& g = s.gpus[i];
    chart_->graph(int(2 + 2 * i))->addData(t, std::max(0, g.util_gpu));
    chart_->graph(int(3 + 2 * i))
        ->addData(t, g.mem_total > 0 ? 100.0 * double(g.mem_used) / double(g.mem_total) : 0);
  }
  for (int i = 0; i < chart_->graphCount(); ++i) chart_->graph(i)->data()->removeBefore(t - kWindowSeconds);
  chart_->xAxis->setRange(std::max(0.0, t - kWindowSeconds), std::max(t, 30.0));
  chart_->replot(QCustomPlot::rpQueuedReplot);
  ++samples_;
}

void SystemPanel::runDoctorAsync() {
  if (doctor_running_) return;
  doctor_running_ = true;
  rerun_->setEnabled(false);
  QPointer<SystemPanel> self(this);
  QThread* t = QThread::create([self] {
    // The CPU's measured AMP choice (a second of LibTorch work) is not shown here: Hyperparameters' amp note
    // and each run's log say it.
    ywb::DoctorOptions o;
    o.probe_cpu_amp = false;
    ywb::DoctorReport r = ywb::runDoctor(o);
    // Posted to the application, not to the panel: the panel may be destroyed meanwhile (the pointer is
    // only read on the GUI thread).
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, r] {
          if (self) self->showDoctor(r);
        },
        Qt::QueuedConnection);
  });
  connect(t, &QThread::finished, t, &QObject::deleteLater);
  static const bool wait_at_exit = (qAddPostRoutine(waitForDoctors), true);
  Q_UNUSED(wait_at_exit);
  doctorThreads().removeAll(nullptr);
  doctorThreads() << t;
  t->start();
}

void SystemPanel::showDoctor(const ywb::DoctorReport& r) {
  doctor_running_ = false;
  rerun_->setEnabled(true);
  QString html = QString("<b>%1</b><br>").arg(r.ok() ? tr("Environment OK") : tr("Environment has problems"));
  html += tr("LibTorch %1 (%2, %3 threads, BLAS %4)<br>")
              .arg(QString::fromStdString(r.torch_version),
                   r.torch_cuda ? "CUDA " + QString::fromStdString(r.torch_cuda_runtime) : tr("CPU only"))
              .arg(r.torch_threads)
              .arg(QString::fromStdString(r.blas));
  html += tr("OpenCV %1, Qt %2<br>").arg(QString::fromStdString(r.opencv_version), qVersion());
  html += tr("CPU: %1 (%2 cores), RAM %3 of %4 free<br>")
              .arg(QString::fromStdString(r.cpu_model))
              .arg(r.cpu_available)
              .arg(gib(r.ram_available), gib(r.ram_total));
  if (r.gpus.empty()) {
    html += tr("GPUs: none. %1<br>").arg(QString::fromStdString(r.nvml_status).toHtmlEscaped());
  }
  for (const auto& g : r.gpus) {
    html += tr("GPU %1: %2, sm_%3%4, %5 total, kernels: %6<br>")
                .arg(g.index)
                .arg(QString::fromStdString(g.name))
                .arg(g.cc_major)
                .arg(g.cc_minor)
                .arg(gib(g.mem_total), QString::fromStdString(g.kernel_support));
  }
  for (const auto& w : r.warnings) {
    html += "<span style='color:#f5a623'>" + tr("Warning: ") + QString::fromStdString(w).toHtmlEscaped() +
            "</span><br>";
  }
  for (const auto& p : r.problems) {
    html += "<span style='color:#e57373'>" + tr("Problem: ") + QString::fromStdString(p).toHtmlEscaped() +
            "</span><br>";
  }
  summary_->setHtml(html);
  Q_EMIT logLine(r.ok() ? tr("Environment doctor: OK")
                        : tr("Environment doctor found %1 problem(s)").arg(r.problems.size()));
  Q_EMIT doctorFinished(r.ok());
}

}  // namespace ywb::gui
