// The Training tab coming back to a run: a finished or stopped run drawn from its results.csv (and
// args.yaml), and other runs overlaid on the same charts. Part of TrainingTab (training_tab.h); GUI thread
// only.
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <algorithm>

#include "log_view.h"
#include "metric_chart.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/run_files.h"
#include "ywb/train_log.h"

namespace ywb::gui {
namespace {

// results.csv columns per chart, in the order of the chart's own series (training_tab_charts.cpp).
const QList<QPair<QString, QStringList>>& chartColumns() {
  static const QList<QPair<QString, QStringList>> cols = {
      {"trainLoss", {"train/box_loss", "train/cls_loss", "train/dfl_loss"}},
      {"valLoss", {"val/box_loss", "val/cls_loss", "val/dfl_loss"}},
      {"precisionRecall", {"metrics/precision(B)", "metrics/recall(B)"}},
      {"map", {"metrics/mAP50(B)", "metrics/mAP50-95(B)"}},
  };
  return cols;
}

bool hasLastCheckpoint(const QString& dir) {
  return QFileInfo::exists(QString::fromStdString(ywb::run_files::lastCheckpoint(dir.toStdString())));
}

}  // namespace

void TrainingTab::showRuns(const QVector<RunResults>& runs) {
  if (controller_->running() || runs.isEmpty()) return;
  for (const auto& [c, n] : own_series_) c->removeSeriesFrom(n);
  for (MetricChart* c : charts_) c->clearData();
  last_x_ = 0;
  lr_split_ = {-1, -1};
  drawRun(runs.front());
  for (int k = 1; k < runs.size(); ++k) overlayRun(runs[k], k);
  for (MetricChart* c : charts_) {
    c->fitLegend();
    c->refresh();
  }
}

void TrainingTab::drawRun(const RunResults& r) {
  shown_run_ = r.dir;
  last_run_dir_ = r.dir;
  const QString name = QFileInfo(r.dir).fileName();
  const auto& epoch = r.values.value("epoch");
  // Epoch e's row goes at x = e: where the live charts put that epoch's validation point (its end).
  for (const auto& [chart_name, cols] : chartColumns()) {
    MetricChart* c = chart(chart_name);
    for (int s = 0; s < cols.size(); ++s) {
      const auto& v = r.values.value(cols[s]);
      for (int i = 0; i < v.size() && i < epoch.size(); ++i) {
        // an epoch without validation (val=false) has no validation numbers: no point
        const bool val_col = !cols[s].startsWith("train/");
        if (val_col && r.values.value("val/box_loss").value(i) + r.values.value("val/cls_loss").value(i) +
                               r.values.value("val/dfl_loss").value(i) <=
                           0)
          continue;
        c->append(s, epoch[i], v[i]);
      }
    }
  }
  const auto &pg0 = r.values.value("lr/pg0"), &pg1 = r.values.value("lr/pg1"),
             &pg2 = r.values.value("lr/pg2");
  for (int i = 0; i < epoch.size() && i < pg0.size(); ++i) {
    const double lr[3] = {pg0[i], pg1.value(i), pg2.value(i)};
    appendLearningRates(epoch[i], lr);
  }
  last_x_ = r.lastEpoch();
  // An end-to-end run (YOLO26) wrote its o2m weight per epoch (results.csv's `o2m` column; absent, it reads
  // 0). The only end-to-end family, YOLO26, has no DFL: its third loss is the L1 term.
  const auto& o2m = r.values.value("o2m");
  const bool e2e = std::any_of(o2m.begin(), o2m.end(), [](double v) { return v > 0; });
  showEndToEnd(e2e, e2e ? 1 : ywb::StepMetrics{}.reg_max);
  for (int i = 0; e2e && i < o2m.size() && i < epoch.size(); ++i) {
    appendO2m(epoch[i] - 1, o2m[i]);  // the weight held through the epoch, as the live steps draw it
    appendO2m(epoch[i], o2m[i]);
  }

  // Markers: Mosaic's close (the trainer turns it off for the last close_mosaic epochs: from the end of
  // epoch epochs - close_mosaic on) and the best epoch (whose weights are in weights/best).
  const ywb::TrainArgs& a = r.args;
  if (r.has_args && a.close_mosaic > 0 && a.mosaic > 0 && a.epochs > a.close_mosaic &&
      a.epochs - a.close_mosaic < r.lastEpoch())
    for (MetricChart* c : {train_loss_, lr_, map_})
      c->addMarker(a.epochs - a.close_mosaic, tr("close mosaic"));
  if (r.bestEpoch() > 0)
    for (MetricChart* c : {val_loss_, pr_, map_}) c->addMarker(r.bestEpoch(), tr("best"));

  // Phase, progress and the best epoch as the run ended.
  const int last = r.lastEpoch();
  QString phase;
  if (last == 0)
    phase = tr("no epochs in results.csv");
  else if (r.has_args && last >= a.epochs)
    phase = tr("finished at epoch %1").arg(last);
  else if (r.has_args)
    phase = tr("stopped at epoch %1 of %2").arg(last).arg(a.epochs);
  else
    phase = tr("stopped or finished at epoch %1 (no args.yaml)").arg(last);
  phase_->setText(phase);
  phase_->setToolTip(r.dir);
  phase_->setStyleSheet("font-weight: bold; font-size: 13pt; color: #81c784; padding: 0 12px;");
  const int planned = r.has_args ? std::max(a.epochs, last) : last;
  progress_->setValue(planned > 0 ? int(1000.0 * last / planned) : 0);
  progress_->setFormat(tr("epoch %1/%2  %p%").arg(last).arg(planned));
  // The run's name where the ETA shows while training (the phase stays short; the tooltip has the folder).
  eta_->setText(r.values.value("time").isEmpty()
                    ? tr("run %1").arg(name)
                    : tr("run %1, took %2 s").arg(name).arg(r.values.value("time").back(), 0, 'f', 0));
  eta_->setToolTip(r.dir);
  // What results.csv does not hold: the live-only charts say so instead of looking broken.
  for (MetricChart* c : {speed_chart_, system_, memory_}) c->setNote(tr("not in results.csv"));
  speed_->setText(tr("images/s: -   data wait: -"));
  const int b = r.best;
  best_->setText(b >= 0 ? tr("best: epoch %1, mAP50-95 %2 (COCO-exact)")
                              .arg(r.bestEpoch())
                              .arg(r.values.value("metrics/mAP50-95(B)").value(b), 0, 'f', 4)
                        : QString());

  // The run's log as it was written (train.log, as `ywb train` printed it); a folder without one
  // (Ultralytics' runs) gets its epochs from results.csv, as the live log showed them.
  RunResults logged = r;
  logged.loadLog();
  if (logged.has_log && logged.log_error.isEmpty()) {
    log_->appendLine(tr("Run %1: its log (%2):").arg(r.dir, QString::fromUtf8(ywb::kRunLogFile)));
    log_->appendLines(logged.log);
  } else if (logged.has_log) {
    log_->appendLine(tr("Run %1: its log could not be read (%2)").arg(r.dir, logged.log_error));
  } else {
    log_->appendLine(tr("Run %1: no log in this run folder (%2); its epochs from results.csv:")
                         .arg(r.dir, QString::fromUtf8(ywb::kRunLogFile)));
  }
  for (int i = 0; i < epoch.size() && !(logged.has_log && logged.log_error.isEmpty()); ++i)
    log_->appendLine(tr("epoch %1/%2: P %3 R %4 mAP50 %5 mAP50-95 %6 (COCO-exact)%7")
                         .arg(int(epoch[i]))
                         .arg(planned)
                         .arg(r.values.value("metrics/precision(B)").value(i), 0, 'f', 3)
                         .arg(r.values.value("metrics/recall(B)").value(i), 0, 'f', 3)
                         .arg(r.values.value("metrics/mAP50(B)").value(i), 0, 'f', 3)
                         .arg(r.values.value("metrics/mAP50-95(B)").value(i), 0, 'f', 3)
                         .arg(i == b ? tr("  best") : QString()));
  for (const QString& p : r.problems()) log_->appendLine(tr("Could not read: %1").arg(p));

  // Resume with the run's own settings (weights/last.safetensors and args.yaml; Ultralytics' runs have
  // last.pt, which the trainer does not resume).
  resume_run_->setVisible(true);
  resume_run_->setToolTip(hasLastCheckpoint(r.dir)
                              ? tr("Continue %1 from its weights/last.safetensors with its own arguments "
                                   "(more epochs extend a finished run)")
                                    .arg(r.dir)
                              : tr("%1 has no weights/last.safetensors to resume from").arg(r.dir));
  updateButtons();
  resume_run_->setEnabled(resume_run_->isEnabled() && hasLastCheckpoint(r.dir));
}

void TrainingTab::overlayRun(const RunResults& r, int k) {
  // One colour per run, the metric told by the line style: solid, dashed, dotted as in the run's own series.
  const QString name = QFileInfo(r.dir).fileName();
  const QColor color = MetricChart::color(4 + k);
  const Qt::PenStyle styles[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
  const auto& epoch = r.values.value("epoch");
  auto overlay = [&](MetricChart* c, const QStringList& cols, const QStringList& labels) {
    for (int s = 0; s < cols.size(); ++s) {
      const int g = c->addSeries(name + " " + labels[s], color, styles[s % 3]);
      const auto& v = r.values.value(cols[s]);
      for (int i = 0; i < v.size() && i < epoch.size(); ++i) c->append(g, epoch[i], v[i]);
    }
  };
  for (const auto& [chart_name, cols] : chartColumns()) {
    QStringList labels;
    for (const QString& col : cols) labels << col.section('/', 1).remove("(B)").remove("_loss");
    overlay(chart(chart_name), cols, labels);
  }
  overlay(lr_, {"lr/pg0"}, {"pg0"});
  log_->appendLine(tr("Overlaid run %1 (%2 epochs)").arg(r.dir).arg(r.epochs()));
}

}  // namespace ywb::gui
