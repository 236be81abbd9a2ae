// The Training tab's hyperparameter tune (`ywb tune` in the workbench): Tune... asks how many runs, then each
// run trains live on the charts as a Start run does, and the tune's best run is shown when it ends.
#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QTimer>

#include "log_view.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/tune.h"

namespace ywb::gui {

void TrainingTab::chooseTune() {
  bool ok = false;
  const int n = QInputDialog::getInt(this, tr("Tune"),
                                     tr("Training runs, each with the search space's hyperparameters mutated "
                                        "from the best runs so far (the first trains them as set):"),
                                     10, 1, 100000, 1, &ok);
  if (ok) startTune(n);
}

void TrainingTab::startTune(int iterations) {
  ywb::TuneOptions o;
  o.train = provider_ ? provider_() : ywb::TrainArgs{};
  o.train.resume.clear();
  o.iterations = iterations;
  beginTune(o);
}

void TrainingTab::resumeTune(const QString& tune_dir, int iterations) {
  ywb::TuneOptions o;
  o.resume = tune_dir.toStdString();
  o.iterations = iterations;
  beginTune(o);
}

void TrainingTab::askIterationsAndResumeTune(const QString& tune_dir) {
  int planned = 0;
  try {
    planned = ywb::tuneIterationsPlanned(tune_dir.toStdString());
  } catch (const std::exception&) {
    resumeTune(tune_dir, 0);  // the tune reports what is wrong with the folder
    return;
  }
  bool ok = false;
  const int n = QInputDialog::getInt(
      this, tr("Resume tune"), tr("Training runs in all (the tune has %1; more extends it):").arg(planned),
      planned, 1, 100000, 1, &ok);
  if (ok) resumeTune(tune_dir, n);
}

void TrainingTab::beginTune(const ywb::TuneOptions& o) {
  if (controller_->running()) return;
  prepareRun(/*clear=*/true);
  if (o.resume.empty() && !fetchWeights(o.train)) return;
  tune_dir_.clear();
  tune_iterations_ = o.iterations;
  launchRun(!o.resume.empty() ? tr("Continuing the tune in %1").arg(QString::fromStdString(o.resume))
                              : tr("Tuning on %1: %2 runs in %3/tune (Runs lists them as tune/iterN)")
                                    .arg(QString::fromStdString(o.train.data))
                                    .arg(o.iterations)
                                    .arg(QString::fromStdString(o.train.project)),
            [&] { controller_->startTune(o); });
}

void TrainingTab::onTuneIteration(int iteration, int iterations, const QString& run_dir) {
  drain();  // the previous run's last steps, before its curves are cleared
  clearCharts(/*keep_system=*/true);
  tune_iteration_ = iteration;
  tune_iterations_ = iterations;
  tune_dir_ = QFileInfo(run_dir).absolutePath();
  const QString line = tr("Tune run %1 of %2: %3").arg(iteration).arg(iterations).arg(run_dir);
  log_->appendLine(line);
  Q_EMIT logLine(line);
}

void TrainingTab::endTune() {
  tune_iteration_ = 0;
  if (tune_dir_.isEmpty()) return;
  try {
    const QString best = QString::fromStdString(ywb::bestTuneRun(tune_dir_.toStdString()));
    const QString line = tr("Tune %1: best run %2 (best_hyperparameters.yaml: Hyperparameters > Load YAML)")
                             .arg(tune_dir_, best);
    log_->appendLine(line);
    Q_EMIT logLine(line);
    last_run_dir_ = best;
    Q_EMIT runFinished(best);
  } catch (const std::exception& e) {
    log_->appendLine(QString::fromUtf8(e.what()));
  }
}

}  // namespace ywb::gui
