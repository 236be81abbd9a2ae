// The Training tab's charts: the eight charts and their series (units on every axis), and exporting them
// as one PNG or PDF. Part of TrainingTab (training_tab.h); GUI thread only.
#include <QFileDialog>
#include <QGridLayout>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <algorithm>

#include "log_view.h"
#include "metric_chart.h"
#include "training_tab.h"

namespace ywb::gui {
namespace {

constexpr int kO2mSeries = 3;  // the train loss chart's series after box, cls and dfl

}  // namespace

void TrainingTab::buildCharts(QWidget* host) {
  auto* grid = new QGridLayout(host);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(4);
  const QString ep = tr("epoch");
  auto make = [&](const char* name, const QString& title, const QString& x, const QString& y) {
    auto* c = new MetricChart(title, x, y, host);
    c->setObjectName(name);
    grid->addWidget(c, charts_.size() / 4, charts_.size() % 4);
    charts_ << c;
    return c;
  };
  // Every axis names its unit; losses and rates are plain numbers, P/R/mAP fractions in [0, 1].
  train_loss_ = make("trainLoss", tr("Train loss"), ep, tr("loss (per batch)"));
  val_loss_ = make("valLoss", tr("Validation loss"), ep, tr("loss (val set)"));
  pr_ = make("precisionRecall", tr("Precision / recall"), ep, tr("fraction (0-1)"));
  map_ = make("map", tr("mAP (COCO-exact)"), ep, tr("mAP (0-1)"));
  lr_ = make("lr", tr("Learning rate"), ep, tr("learning rate (per step)"));
  speed_chart_ = make("speed", tr("Throughput"), ep, tr("images/s"));
  system_ = make("system", tr("System load"), tr("time (s)"), tr("% of capacity"));
  memory_ = make("memory", tr("Memory"), tr("time (s)"), tr("GiB"));
  for (MetricChart* c : {train_loss_, val_loss_}) {
    c->addSeries("box", MetricChart::color(0), Qt::SolidLine, c == val_loss_);
    c->addSeries("cls", MetricChart::color(1), Qt::SolidLine, c == val_loss_);
    c->addSeries("dfl", MetricChart::color(2), Qt::SolidLine, c == val_loss_);
  }
  // An end-to-end run's (YOLO26) one-to-many loss weight, on the loss axis (it runs from 0.8 down to 0.1);
  // listed in the legend only for such runs (showEndToEnd).
  train_loss_->addSeries(tr("o2m weight"), MetricChart::color(4), Qt::DashDotLine);
  train_loss_->graph(kO2mSeries)->setLineStyle(QCPGraph::lsStepRight);  // a point holds the epoch up to it
  train_loss_->setSeriesInLegend(kO2mSeries, false);
  pr_->addSeries(tr("P"), MetricChart::color(0), Qt::SolidLine, true);
  pr_->addSeries(tr("R"), MetricChart::color(1), Qt::SolidLine, true);
  map_->addSeries(tr("mAP50"), MetricChart::color(2), Qt::SolidLine, true);
  map_->addSeries(tr("mAP50-95"), MetricChart::color(3), Qt::SolidLine, true);
  // One line while the three parameter groups share a rate (after warmup), three where they differ (warmup
  // raises the weights' rates from 0 while the biases' falls from warmup_bias_lr); see drain().
  lr_->addSeries(tr("all groups"), MetricChart::color(4));
  lr_->addSeries("pg0 (bias)", MetricChart::color(0));
  lr_->addSeries("pg1 (weights)", MetricChart::color(1), Qt::DashLine);
  lr_->addSeries("pg2 (BN)", MetricChart::color(2), Qt::DotLine);
  speed_chart_->addSeries(tr("images/s"), MetricChart::color(0));
  system_->addSeries(tr("CPU"), MetricChart::color(0));
  system_->addSeries(tr("RAM"), MetricChart::color(1));
  system_->addSeries(tr("GPU load"), MetricChart::color(2));
  system_->addSeries(tr("GPU memory"), MetricChart::color(3), Qt::DashLine);
  system_->addSeries(tr("data wait"), MetricChart::color(4), Qt::DotLine);
  memory_->addSeries(tr("process RSS"), MetricChart::color(0));
  memory_->addSeries(tr("GPU used (NVML)"), MetricChart::color(3));
  // The tensor allocator's pool (what Ultralytics' GPU_mem shows) and the tensors' peak since the last step
  // (StepMetrics): the pool bounds the peak, NVML adds the CUDA context and other processes.
  memory_->addSeries(tr("tensor pool (reserved)"), MetricChart::color(5), Qt::DashLine);
  memory_->addSeries(tr("tensors, step peak"), MetricChart::color(6), Qt::DotLine);
  for (MetricChart* c : {train_loss_, val_loss_, pr_, map_, lr_})
    own_series_ << qMakePair(c, c->graphCount());
}

void TrainingTab::showEndToEnd(bool end2end, int reg_max) {
  // The loss items are what the trainer logs: for an end-to-end model its one-to-one branch's, and with
  // reg_max 1 the third is the L1 term on the box distances that takes DFL's place (results.csv still calls
  // it dfl_loss, as Ultralytics does).
  const QString third = reg_max == 1 ? tr("dfl / L1") : QString("dfl");
  for (MetricChart* c : {train_loss_, val_loss_}) {
    if (c->graph(2)->name() == third) continue;
    c->graph(2)->setName(third);
    c->fitLegend();
  }
  if (end2end == end2end_shown_) return;
  end2end_shown_ = end2end;
  train_loss_->setSeriesInLegend(kO2mSeries, end2end);
  train_loss_->setToolTip(end2end
                              ? tr("End-to-end model: the one-to-one branch's losses, as the trainer logs "
                                   "them; the o2m weight is the one-to-many branch's share of the loss "
                                   "(the one-to-one branch gets 1 - o2m)")
                              : QString());
  if (!end2end) train_loss_->setNote(QString());
}

void TrainingTab::appendO2m(double x, double o2m) {
  train_loss_->append(kO2mSeries, x, o2m);
  const double first = train_loss_->graph(kO2mSeries)->data()->constBegin()->value;
  train_loss_->setNote(tr("o2m weight %1 → %2").arg(first, 0, 'f', 2).arg(o2m, 0, 'f', 2));
}

MetricChart* TrainingTab::chart(const QString& name) const {
  for (MetricChart* c : charts_)
    if (c->objectName() == name) return c;
  return nullptr;
}

void TrainingTab::chooseExport() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export charts"), "training_charts.png",
                                                    tr("PNG image (*.png);;PDF document (*.pdf)"));
  if (path.isEmpty()) return;
  log_->appendLine(exportCharts(path) ? tr("Charts saved to %1").arg(path)
                                      : tr("Could not save %1").arg(path));
}

bool TrainingTab::exportCharts(const QString& path) {
  for (MetricChart* c : charts_) c->replot(QCustomPlot::rpImmediateRefresh);
  if (path.endsWith(".pdf", Qt::CaseInsensitive)) {
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Landscape);
    pdf.setResolution(150);
    QPainter painter(&pdf);
    if (!painter.isActive()) return false;
    const QSize size = charts_host_->size();
    const QRect page = painter.viewport();
    const double scale = std::min(double(page.width()) / size.width(), double(page.height()) / size.height());
    painter.scale(scale, scale);
    charts_host_->render(&painter);
    return painter.end();
  }
  return charts_host_->grab().save(path);
}

}  // namespace ywb::gui
