// The Training dashboard: start/pause/stop/resume, phase, progress and ETA, live charts of losses, metrics,
// learning rate, throughput and system load, markers at warmup end and close-mosaic, a log console and
// chart export. Thread rules: GUI thread only; the run itself lives in a TrainingController.
#pragma once
#include <QElapsedTimer>
#include <QWidget>
#include <functional>

#include "run_results.h"
#include "ywb/system_monitor.h"
#include "ywb/train_args.h"
#include "ywb/train_events.h"
#include "ywb/tune.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace ywb::gui {

class LogView;
class MetricChart;
class SystemSampler;
class TrainingController;

class TrainingTab : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingTab(QWidget* parent = nullptr);
  ~TrainingTab() override;
  /// Where Start takes its arguments from (the Hyperparameters tab).
  void setArgsProvider(std::function<ywb::TrainArgs()> provider) { provider_ = std::move(provider); }
  TrainingController* controller() const { return controller_; }
  /// The chart with this object name: trainLoss, valLoss, precisionRecall, map, lr, speed, system, memory.
  MetricChart* chart(const QString& name) const;
  QLabel* phaseLabel() const { return phase_; }
  /// Every phase shown so far in this session, in order (trainPhaseName text).
  const QStringList& phasesSeen() const { return phases_; }
  /// The run folder of the last finished or stopped run ("" before any).
  QString lastRunDir() const { return last_run_dir_; }
  /// The run folder whose results.csv the charts show (opened again or selected in Runs), "" when none.
  QString shownRun() const { return shown_run_; }
  QPushButton* resumeShownButton() const { return resume_run_; }
  /// Saves every chart into one PNG (or PDF when the name ends in .pdf). Returns false on failure.
  bool exportCharts(const QString& path);

 public Q_SLOTS:
  void startTraining();
  /// Continues the run in `run_dir` (its weights/last.safetensors).
  /// Continues the run in `run_dir` with its own arguments; `epochs` > 0 asks for that many epochs in all
  /// (more than the run had extends a stopped or finished run, as `ywb train resume=RUN epochs=N`).
  /// A tune folder (ywb tune) continues the tune instead, `epochs` then counting its runs (resumeTune).
  void resumeRun(const QString& run_dir, int epochs = 0);
  void stopTraining();
  void setPaused(bool paused);
  /// Starts a hyperparameter tune of `iterations` runs with the Start arguments (training_tab_tune.cpp):
  /// each run shown live as it trains, a log line per iteration, Runs showing the best when it ends.
  void startTune(int iterations);
  /// Continues the tune in `tune_dir` (its own arguments and space), to `iterations` runs in all (0: its own
  /// count), its interrupted run from that run's checkpoint.
  void resumeTune(const QString& tune_dir, int iterations = 0);
  /// Shows a finished or stopped run as it was (training_tab_history.cpp): every epoch chart drawn from its
  /// results.csv with the best epoch and Mosaic's close marked, the phase "finished/stopped at epoch N", its
  /// epochs in the log, and Resume offered with the run's own settings. Further runs are overlaid on the
  /// same charts (dashed, one colour per run). Ignored while a run trains.
  void showRuns(const QVector<ywb::gui::RunResults>& runs);

 Q_SIGNALS:
  void logLine(const QString& line);
  void runFinished(const QString& run_dir);

 private:
  void buildCharts(QWidget* host);
  void begin(const ywb::TrainArgs& args);
  void drain();
  void appendLearningRates(double x, const double (&lr)[3]);
  /// An end-to-end run (YOLO26) or not (training_tab_charts.cpp): the loss charts' third series is named
  /// "dfl / L1" where the model has no DFL (reg_max 1), and the o2m weight series and note are shown.
  void showEndToEnd(bool end2end, int reg_max);
  /// A point of the o2m weight series (the train loss chart) and the note "o2m weight first -> latest".
  void appendO2m(double x, double o2m);
  void onPhase(ywb::TrainPhase phase, const QString& detail, double at_epoch);
  void onEpoch(const ywb::EpochMetrics& m);
  void onFinished(const ywb::TrainSummary& s);
  void onSample(double seconds, const ywb::SystemSample& s);
  void updateButtons();
  void chooseResume();
  void chooseExport();
  void askEpochsAndResume(const QString& dir);
  void chooseTune();
  void askIterationsAndResumeTune(const QString& tune_dir);
  void beginTune(const ywb::TuneOptions& options);
  void onTuneIteration(int iteration, int iterations, const QString& run_dir);
  void endTune();
  /// Empties the charts for a new run; `keep_system`: not the System load and Memory charts (a tune's next
  /// run: those run on the tune's own clock).
  void clearCharts(bool keep_system = false);
  /// What every start (a run, a resume, a tune) does to the tab first: the shown runs' overlays removed, the
  /// charts emptied when `clear` (a resume of the shown run continues its curves), the shown run let go and
  /// the live charts' notes cleared.
  void prepareRun(bool clear);
  /// Says `what` in the log, calls `start` (the controller's), and follows the run's events from there.
  void launchRun(const QString& what, const std::function<void()>& start);
  /// Fetches official weights named in model=/pretrained=; false (and why, in the log) when one cannot be.
  bool fetchWeights(const ywb::TrainArgs& args);
  void drawRun(const RunResults& r);
  void overlayRun(const RunResults& r, int k);

  std::function<ywb::TrainArgs()> provider_;
  TrainingController* controller_ = nullptr;
  SystemSampler* sampler_ = nullptr;
  QTimer* drain_timer_ = nullptr;
  QPushButton *start_ = nullptr, *pause_ = nullptr, *stop_ = nullptr, *resume_ = nullptr, *export_ = nullptr;
  QLabel *phase_ = nullptr, *eta_ = nullptr, *speed_ = nullptr, *best_ = nullptr;
  QProgressBar* progress_ = nullptr;
  LogView* log_ = nullptr;
  QWidget* charts_host_ = nullptr;
  QList<MetricChart*> charts_;
  MetricChart *train_loss_ = nullptr, *val_loss_ = nullptr, *pr_ = nullptr, *map_ = nullptr, *lr_ = nullptr,
              *speed_chart_ = nullptr, *system_ = nullptr, *memory_ = nullptr;
  int next_refresh_ = 0;
  QStringList phases_;
  ywb::TrainPhase last_phase_ = ywb::TrainPhase::Finished;
  double last_x_ = 0;                       // fractional epoch of the latest step
  QPair<double, double> lr_split_{-1, -1};  // epochs where the LR groups differ (first, last step)
  bool end2end_shown_ = false;              // the charts show an end-to-end run's labels and o2m weight
  double sample_offset_ = -1;               // sampler seconds at run start
  int extra_gpus_ = 0;  // GPUs beyond the first with their own series (multi-GPU machines)
  QString last_run_dir_;
  QString shown_run_;
  QPushButton* resume_run_ = nullptr;
  QPushButton* tune_ = nullptr;
  int tune_iteration_ = 0, tune_iterations_ = 0;  // the tune's run in progress (0: no tune)
  QString tune_dir_;
  QList<QPair<MetricChart*, int>> own_series_;  // epoch charts and their own series count (overlays follow)
};

}  // namespace ywb::gui
