#include "training_tab.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "log_view.h"
#include "metric_chart.h"
#include "system_sampler.h"
#include "training_controller.h"
#include "weights_download_dialog.h"
#include "ywb/run_record.h"
#include "ywb/trainer.h"

namespace ywb::gui {
namespace {

QString duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  const int t = int(std::lround(s));
  return t >= 3600 ? QString("%1:%2:%3")
                         .arg(t / 3600)
                         .arg(t / 60 % 60, 2, 10, QChar('0'))
                         .arg(t % 60, 2, 10, QChar('0'))
                   : QString("%1:%2").arg(t / 60).arg(t % 60, 2, 10, QChar('0'));
}

}  // namespace

TrainingTab::TrainingTab(QWidget* parent) : QWidget(parent) {
  setObjectName("trainingTab");
  controller_ = new TrainingController(this);
  auto* layout = new QVBoxLayout(this);

  auto* bar = new QHBoxLayout;
  start_ = new QPushButton(tr("Start"), this);
  start_->setObjectName("startButton");
  pause_ = new QPushButton(tr("Pause"), this);
  pause_->setObjectName("pauseButton");
  pause_->setCheckable(true);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setObjectName("stopButton");
  resume_ = new QPushButton(tr("Resume..."), this);
  resume_->setObjectName("resumeButton");
  resume_->setToolTip(tr("Continue a stopped run from its weights/last.safetensors"));
  resume_run_ = new QPushButton(tr("Resume this run..."), this);
  resume_run_->setObjectName("resumeShownButton");
  resume_run_->setVisible(false);
  export_ = new QPushButton(tr("Export charts..."), this);
  for (QPushButton* b : {start_, pause_, stop_, resume_, resume_run_, export_}) bar->addWidget(b);
  bar->addStretch(1);
  eta_ = new QLabel(this);
  eta_->setObjectName("etaLabel");
  bar->addWidget(eta_);
  layout->addLayout(bar);

  // Phase and progress on their own row, so the buttons, a long phase and the bar never widen the window.
  auto* state = new QHBoxLayout;
  phase_ = new QLabel(tr("Idle"), this);
  phase_->setObjectName("phaseLabel");
  phase_->setStyleSheet("font-weight: bold; font-size: 13pt; color: #4fc3f7; padding: 0 12px;");
  // A long phase ("Scanning: <path>") is cut at 420 px, never widening the window; its tooltip is whole.
  phase_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  phase_->setMinimumWidth(260);
  phase_->setMaximumWidth(420);
  state->addWidget(phase_, 1);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->setFormat("%p%");
  state->addWidget(progress_, 2);

  best_ = new QLabel(this);
  best_->setObjectName("bestLabel");
  state->addWidget(best_);
  layout->addLayout(state);
  speed_ = new QLabel(tr("images/s: -   data wait: -"), this);
  speed_->setObjectName("speedLabel");
  speed_->setWordWrap(true);  // wraps rather than widening the window
  layout->addWidget(speed_);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName("trainingSplitter");
  charts_host_ = new QWidget(split);
  buildCharts(charts_host_);
  log_ = new LogView(split);
  log_->setObjectName("trainingLog");
  split->addWidget(charts_host_);
  split->addWidget(log_);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(start_, &QPushButton::clicked, this, &TrainingTab::startTraining);
  connect(pause_, &QPushButton::toggled, this, &TrainingTab::setPaused);
  connect(stop_, &QPushButton::clicked, this, &TrainingTab::stopTraining);
  connect(resume_, &QPushButton::clicked, this, &TrainingTab::chooseResume);
  connect(resume_run_, &QPushButton::clicked, this, [this] { askEpochsAndResume(shown_run_); });
  connect(export_, &QPushButton::clicked, this, &TrainingTab::chooseExport);
  connect(controller_, &TrainingController::phaseChanged, this, &TrainingTab::onPhase);
  connect(controller_, &TrainingController::epochFinished, this, &TrainingTab::onEpoch);
  connect(controller_, &TrainingController::finished, this, &TrainingTab::onFinished);
  connect(controller_, &TrainingController::logLine, log_, &LogView::appendLine);
  connect(controller_, &TrainingController::logLine, this, &TrainingTab::logLine);
  connect(controller_, &TrainingController::failed, this, [this](const QString& msg) {
    phase_->setText(tr("Failed"));
    phase_->setStyleSheet("font-weight: bold; font-size: 13pt; color: #e57373; padding: 0 12px;");
    log_->appendLine(tr("Training failed: %1").arg(msg));
    Q_EMIT logLine(tr("Training failed: %1").arg(msg));
  });
  connect(controller_, &TrainingController::stoppedRunning, this, [this] {
    drain();
    drain_timer_->stop();
    for (MetricChart* c : charts_) c->refresh();  // the round-robin may not have reached every chart
    updateButtons();
  });

  drain_timer_ = new QTimer(this);
  drain_timer_->setInterval(33);  // ~30 Hz: smooth enough, cheap enough
  connect(drain_timer_, &QTimer::timeout, this, &TrainingTab::drain);

  sampler_ = new SystemSampler(1000, this);
  connect(sampler_, &SystemSampler::sampled, this, &TrainingTab::onSample);
  updateButtons();
}

TrainingTab::~TrainingTab() {
  controller_->shutdown();
}

void TrainingTab::updateButtons() {
  const bool running = controller_->running();
  start_->setEnabled(!running);
  resume_->setEnabled(!running);
  resume_run_->setEnabled(!running && !shown_run_.isEmpty());
  pause_->setEnabled(running);
  stop_->setEnabled(running);
  if (!running && pause_->isChecked()) {
    const QSignalBlocker block(pause_);
    pause_->setChecked(false);
  }
}

void TrainingTab::startTraining() {
  ywb::TrainArgs args = provider_ ? provider_() : ywb::TrainArgs{};
  args.resume.clear();
  begin(args);
}

void TrainingTab::resumeRun(const QString& run_dir, int epochs) {
  // The run's own arguments (resolveTrainArgs): the editor's values are not changes asked for; only an
  // epoch count given here is (set() records it as given, as the command line does).
  ywb::TrainArgs args;
  args.resume = run_dir.toStdString();
  if (epochs > 0) args.set("epochs", std::to_string(epochs));
  begin(args);
}

void TrainingTab::begin(const ywb::TrainArgs& args) {
  if (controller_->running()) return;
  const bool resuming = !args.resume.empty();
  // A resumed run continues its curves (those of this session, or of the run shown from its results.csv);
  // anything else starts clean. Overlaid runs go either way.
  for (const auto& [c, n] : own_series_) c->removeSeriesFrom(n);
  const bool other_run =
      !shown_run_.isEmpty() && QDir(QString::fromStdString(args.resume)) != QDir(shown_run_);
  if (!resuming || other_run) {
    for (MetricChart* c : charts_) c->clearData();
    last_x_ = 0;
    lr_split_ = {-1, -1};
  }
  shown_run_.clear();
  resume_run_->setVisible(false);
  eta_->setToolTip(QString());
  for (MetricChart* c : {speed_chart_, system_, memory_}) c->setNote(QString());  // live from here on
  if (!resuming) {
    // Official weights named in model=/pretrained= are fetched here with a progress dialog (Cancel stops it);
    // the trainer then finds them in the weights cache.
    for (const std::string& w : {args.model, args.pretrained}) {
      QString error;
      if (!w.empty() && WeightsDownloadDialog::resolve(this, QString::fromStdString(w), &error).isEmpty()) {
        log_->appendLine(tr("Not started: %1").arg(error));
        Q_EMIT logLine(tr("Not started: %1").arg(error));
        return;
      }
    }
  }
  sample_offset_ = -1;
  phase_->setStyleSheet("font-weight: bold; font-size: 13pt; color: #4fc3f7; padding: 0 12px;");
  const QString what = resuming ? tr("Resuming %1").arg(QString::fromStdString(args.resume))
                                : tr("Starting training on %1").arg(QString::fromStdString(args.data));
  log_->appendLine(what);
  Q_EMIT logLine(what);
  controller_->start(args);
  drain_timer_->start();
  updateButtons();
}

void TrainingTab::stopTraining() {
  if (!controller_->running()) return;
  phase_->setText(tr("Stopping: finishing the step and saving last..."));
  controller_->requestStop();
}

void TrainingTab::setPaused(bool paused) {
  controller_->setPaused(paused);
  pause_->setText(paused ? tr("Continue") : tr("Pause"));
  if (paused) phase_->setText(tr("Paused (after the current step)"));
}

void TrainingTab::drain() {
  const std::vector<ywb::StepMetrics> steps = controller_->takeSteps();
  for (const auto& m : steps) {
    const double x = ywb::stepEpochPosition(m);
    if (x <= last_x_) {  // (equal: one step ran before the stop and runs again)
      // A run stopped mid-epoch resumes at the start of that epoch: drop the partial epoch's points so the
      // repeated steps replace them.
      for (MetricChart* c : {train_loss_, lr_, speed_chart_})
        for (int g = 0; g < c->graphCount(); ++g) c->graph(g)->data()->removeAfter(m.epoch);
    }
    last_x_ = x;
    train_loss_->append(0, x, m.box);
    train_loss_->append(1, x, m.cls);
    train_loss_->append(2, x, m.dfl);
    appendLearningRates(x, m.lr);
    speed_chart_->append(0, x, m.images_per_s);
  }
  if (!steps.empty()) {
    const auto& m = steps.back();
    const double total = double(std::max(1, m.epochs)) * double(std::max<int64_t>(1, m.batches));
    const double done = double(m.epoch) * double(std::max<int64_t>(1, m.batches)) + double(m.batch + 1);
    progress_->setValue(int(1000.0 * done / total));
    progress_->setFormat(
        tr("epoch %1/%2  batch %3/%4  %p%").arg(m.epoch + 1).arg(m.epochs).arg(m.batch + 1).arg(m.batches));
    eta_->setText(tr("elapsed %1  ETA %2").arg(duration(m.elapsed_s), duration(m.eta_s)));
    const double busy = m.data_wait_s + m.compute_s;
    const double wait = busy > 0 ? 100.0 * m.data_wait_s / busy : 0;
    speed_->setText(tr("images/s: %1   data wait: %2%   boxes in batch: %3   imgsz %4")
                        .arg(m.images_per_s, 0, 'f', 1)
                        .arg(wait, 0, 'f', 0)
                        .arg(m.instances)
                        .arg(m.imgsz));
    if (sample_offset_ >= 0) {
      // data-wait share and allocator memory go on the seconds axis of the system charts
      const double t = system_->points(0) ? system_->graph(0)->data()->constEnd()[-1].key : 0;
      if (system_->points(4) == 0 || t > system_->graph(4)->data()->constEnd()[-1].key) {
        system_->append(4, t, wait);
        memory_->append(2, t, double(m.device_mem) / double(1 << 30));
      }
    }
  }
  // Replot at most two charts per tick so a tick never costs more than two replots.
  for (int n = 0; n < 2 && !charts_.isEmpty(); ++n) {
    charts_[next_refresh_ % charts_.size()]->refresh();
    ++next_refresh_;
  }
}

void TrainingTab::appendLearningRates(double x, const double (&lr)[3]) {
  // The groups coincide when they agree to 1e-9 relative (they are the same schedule then, bit for bit or
  // nearly); a NaN leaves a gap, so exactly one of "all groups" and the three group lines is drawn per step.
  const double lo = std::min({lr[0], lr[1], lr[2]}), hi = std::max({lr[0], lr[1], lr[2]});
  const bool same = hi - lo <= 1e-9 * std::max(std::abs(hi), 1e-300);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  lr_->append(0, x, same ? lr[0] : nan);
  for (int i = 0; i < 3; ++i) lr_->append(1 + i, x, same ? nan : lr[i]);
  // The legend lists only what is drawn: the group lines once the groups have differed.
  for (int i = 1; i <= 3; ++i) lr_->setSeriesInLegend(i, !same || lr_split_.first >= 0);
  if (same) return;
  if (lr_split_.first < 0) lr_split_.first = x;
  lr_split_.second = x;
  lr_->setNote(tr("groups differ in epochs %1-%2; one line where they coincide")
                   .arg(lr_split_.first, 0, 'f', 1)
                   .arg(lr_split_.second, 0, 'f', 1));
}

void TrainingTab::onPhase(ywb::TrainPhase phase, const QString& detail, double at_epoch) {
  if (at_epoch < 0) at_epoch = last_x_;  // no step yet in this session: where the charts end
  const QString name = QString::fromUtf8(ywb::trainPhaseName(phase));
  phases_ << name;
  phase_->setText(detail.isEmpty() ? name : name + ": " + detail);
  phase_->setToolTip(phase_->text());
  // Validation and saving interrupt warmup at every epoch end: only the step into plain training ends it.
  if (last_phase_ == ywb::TrainPhase::Warmup &&
      (phase == ywb::TrainPhase::Training || phase == ywb::TrainPhase::CloseMosaic)) {
    // after the last warmup step (the trainer warms up while iteration <= its warmup iterations)
    for (MetricChart* c : {train_loss_, lr_}) c->addMarker(at_epoch, tr("warmup end"));
  }
  if (phase == ywb::TrainPhase::CloseMosaic && last_phase_ != ywb::TrainPhase::CloseMosaic) {
    const double x = std::ceil(at_epoch - 1e-9);
    for (MetricChart* c : {train_loss_, lr_, map_}) c->addMarker(x, tr("close mosaic"));
  }
  if (phase == ywb::TrainPhase::Validating || phase == ywb::TrainPhase::Saving) {
    // these interrupt training briefly; the marker logic compares training phases only
  } else {
    last_phase_ = phase;
  }
}

void TrainingTab::onEpoch(const ywb::EpochMetrics& m) {
  const double x = m.epoch + 1;
  if (m.validated) {
    val_loss_->append(0, x, m.val_box);
    val_loss_->append(1, x, m.val_cls);
    val_loss_->append(2, x, m.val_dfl);
    pr_->append(0, x, m.precision);
    pr_->append(1, x, m.recall);
    map_->append(0, x, m.map50);
    map_->append(1, x, m.map);
  }
  for (MetricChart* c : {val_loss_, pr_, map_}) c->refresh();  // once per epoch: cheap
  const QString line = tr("epoch %1/%2: P %3 R %4 mAP50 %5 mAP50-95 %6 (COCO-exact)%7")
                           .arg(m.epoch + 1)
                           .arg(m.epochs)
                           .arg(m.precision, 0, 'f', 3)
                           .arg(m.recall, 0, 'f', 3)
                           .arg(m.map50, 0, 'f', 3)
                           .arg(m.map, 0, 'f', 3)
                           .arg(m.best ? tr("  new best") : QString());
  log_->appendLine(line);
  if (m.best)
    best_->setText(tr("best: epoch %1, mAP50-95 %2 (COCO-exact)").arg(m.epoch + 1).arg(m.map, 0, 'f', 4));
}

void TrainingTab::onFinished(const ywb::TrainSummary& s) {
  last_run_dir_ = QString::fromStdString(s.run_dir);
  const QString line =
      tr("Run %1: %2 epoch(s) in %3, %4 images/s, AMP %5%6")
          .arg(last_run_dir_)
          .arg(s.epochs_completed)
          .arg(duration(s.seconds))
          .arg(s.images_per_s, 0, 'f', 1)
          .arg(QString::fromStdString(s.amp))
          .arg(s.stop_reason.empty() ? QString() : " (" + QString::fromStdString(s.stop_reason) + ")");
  log_->appendLine(line);
  Q_EMIT logLine(line);
  Q_EMIT runFinished(last_run_dir_);
}

void TrainingTab::onSample(double seconds, const ywb::SystemSample& s) {
  if (!controller_->running()) return;
  if (sample_offset_ < 0) sample_offset_ = seconds;
  const double t = seconds - sample_offset_;
  system_->append(0, t, s.cpu_percent);
  system_->append(1, t, s.ram_total > 0 ? 100.0 * double(s.ram_used) / double(s.ram_total) : 0);
  memory_->append(0, t, double(s.process_rss) / double(1 << 30));
  // GPU 0 has the first series; GPUs 1.. (multi-GPU machines) get theirs when first seen.
  for (int i = 0; i < int(s.gpus.size()); ++i) {
    if (i > extra_gpus_) {
      if (extra_gpus_ == 0) {  // from now on the names say which GPU
        system_->graph(2)->setName(tr("GPU%1 load").arg(0));
        system_->graph(3)->setName(tr("GPU%1 memory").arg(0));
        memory_->graph(1)->setName(tr("GPU%1 used (NVML)").arg(0));
      }
      system_->addSeries(tr("GPU%1 load").arg(i), MetricChart::color(5 + 2 * i));
      system_->addSeries(tr("GPU%1 memory").arg(i), MetricChart::color(5 + 2 * i), Qt::DashLine);
      memory_->addSeries(tr("GPU%1 used (NVML)").arg(i), MetricChart::color(5 + 2 * i));
      extra_gpus_ = i;
    }
    const auto& g = s.gpus[size_t(i)];
    const int load = i == 0 ? 2 : 5 + 2 * (i - 1), used = i == 0 ? 1 : 3 + (i - 1);
    system_->append(load, t, std::max(0, g.util_gpu));
    system_->append(load + 1, t, g.mem_total > 0 ? 100.0 * double(g.mem_used) / double(g.mem_total) : 0);
    memory_->append(used, t, double(std::max<int64_t>(0, g.mem_used)) / double(1 << 30));
  }
}

void TrainingTab::chooseResume() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Run folder to resume"), last_run_dir_.isEmpty() ? QDir::currentPath() : last_run_dir_);
  if (!dir.isEmpty()) askEpochsAndResume(dir);
}

void TrainingTab::askEpochsAndResume(const QString& dir) {
  // How many epochs in all: the run's own count by default; more extends it (a finished run too).
  int planned = 0;
  try {
    ywb::TrainArgs probe;
    probe.resume = dir.toStdString();
    planned = ywb::resolveTrainArgs(probe).epochs;
  } catch (const std::exception&) {
    resumeRun(dir);  // the controller reports what is wrong with the folder
    return;
  }
  bool ok = false;
  const int epochs = QInputDialog::getInt(
      this, tr("Resume"),
      tr("Train until epoch (the run has %1; more extends it, also when it has finished):").arg(planned),
      planned, 1, 1000000, 1, &ok);
  if (ok) resumeRun(dir, epochs == planned ? 0 : epochs);
}

}  // namespace ywb::gui
