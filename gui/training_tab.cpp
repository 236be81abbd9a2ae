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
  tune_ = new QPushButton(tr("Tune..."), this);
  tune_->setObjectName("tuneButton");
  tune_->setToolTip(
      tr("Evolve the hyperparameters: many short runs, each mutated from the best so far "
         "(ywb tune)"));
  export_ = new QPushButton(tr("Export charts..."), this);
  for (QPushButton* b : {start_, pause_, stop_, resume_, resume_run_, tune_, export_}) bar->addWidget(b);
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
  connect(tune_, &QPushButton::clicked, this, &TrainingTab::chooseTune);
  connect(controller_, &TrainingController::tuneIterationStarted, this, &TrainingTab::onTuneIteration);
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
    if (controller_->tuning()) endTune();
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
  tune_->setEnabled(!running);
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
  if (ywb::isTuneFolder(run_dir.toStdString())) return resumeTune(run_dir, epochs);  // a count of runs there

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
  // anything else starts clean.
  const bool other_run =
      !shown_run_.isEmpty() && QDir(QString::fromStdString(args.resume)) != QDir(shown_run_);
  prepareRun(!resuming || other_run);
  if (!resuming && !fetchWeights(args)) return;
  launchRun(resuming ? tr("Resuming %1").arg(QString::fromStdString(args.resume))
                     : tr("Starting training on %1").arg(QString::fromStdString(args.data)),
            [&] { controller_->start(args); });
}

void TrainingTab::prepareRun(bool clear) {
  for (const auto& [c, n] : own_series_) c->removeSeriesFrom(n);  // overlaid runs go either way
  if (clear) clearCharts();
  shown_run_.clear();
  resume_run_->setVisible(false);
  eta_->setToolTip(QString());
  for (MetricChart* c : {speed_chart_, system_, memory_}) c->setNote(QString());  // live from here on
}

void TrainingTab::launchRun(const QString& what, const std::function<void()>& start) {
  sample_offset_ = -1;
  phase_->setStyleSheet("font-weight: bold; font-size: 13pt; color: #4fc3f7; padding: 0 12px;");
  log_->appendLine(what);
  Q_EMIT logLine(what);
  start();
  drain_timer_->start();
  updateButtons();
}

void TrainingTab::clearCharts(bool keep_system) {
  for (MetricChart* c : charts_)
    if (!keep_system || (c != system_ && c != memory_)) c->clearData();
  last_x_ = 0;
  lr_split_ = {-1, -1};
  showEndToEnd(false, ywb::StepMetrics{}.reg_max);  // until the run's first step says what it trains
}

bool TrainingTab::fetchWeights(const ywb::TrainArgs& args) {
  // Official weights named in model=/pretrained= are fetched here with a progress dialog (Cancel stops it);
  // the trainer then finds them in the weights cache.
  for (const std::string& w : {args.model, args.pretrained}) {
    QString error;
    if (!w.empty() && WeightsDownloadDialog::resolve(this, QString::fromStdString(w), &error).isEmpty()) {
      log_->appendLine(tr("Not started: %1").arg(error));
      Q_EMIT logLine(tr("Not started: %1").arg(error));
      return false;
    }
  }
  return true;
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

void TrainingTab::chooseResume() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Run folder to resume"), last_run_dir_.isEmpty() ? QDir::currentPath() : last_run_dir_);
  if (!dir.isEmpty()) askEpochsAndResume(dir);
}

void TrainingTab::askEpochsAndResume(const QString& dir) {
  if (ywb::isTuneFolder(dir.toStdString())) return askIterationsAndResumeTune(dir);
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
