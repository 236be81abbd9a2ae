// The Training tab's live run: what the trainer reports while it trains (steps, phases, epochs, the end) and
// the system samples, drawn into the charts (training_tab_charts.cpp builds them). Part of TrainingTab
// (training_tab.h); GUI thread only.
#include <QLabel>
#include <QProgressBar>
#include <algorithm>
#include <cmath>
#include <limits>

#include "log_view.h"
#include "metric_chart.h"
#include "training_controller.h"
#include "training_tab.h"
#include "ywb/run_record.h"

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
    showEndToEnd(m.end2end, m.reg_max);
    if (m.end2end) appendO2m(x, m.o2m);
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
        memory_->append(3, t, double(m.device_mem_peak) / double(1 << 30));
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
  const QString text = detail.isEmpty() ? name : name + ": " + detail;
  phase_->setText(
      tune_iteration_ > 0 ? tr("Tune %1/%2: %3").arg(tune_iteration_).arg(tune_iterations_).arg(text) : text);
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
  showEndToEnd(m.end2end, m.reg_max);
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
                           .arg(m.best ? tr("  new best") : QString()) +
                       (m.end2end ? tr("  (o2m weight %1)").arg(m.o2m, 0, 'f', 2) : QString());
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
  if (tune_iteration_ == 0) Q_EMIT runFinished(last_run_dir_);  // a tune's: its best, when it ends
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
    // Memory: RSS, GPU0 (NVML), the tensor pool and step peak, then GPU1.. in the order first seen.
    const int load = i == 0 ? 2 : 5 + 2 * (i - 1), used = i == 0 ? 1 : 4 + (i - 1);
    system_->append(load, t, std::max(0, g.util_gpu));
    system_->append(load + 1, t, g.mem_total > 0 ? 100.0 * double(g.mem_used) / double(g.mem_total) : 0);
    memory_->append(used, t, double(std::max<int64_t>(0, g.mem_used)) / double(1 << 30));
  }
}

}  // namespace ywb::gui
