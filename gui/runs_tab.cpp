#include "runs_tab.h"

#include <algorithm>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "metric_chart.h"
#include "run_pictures.h"
#include "teardown.h"
#include "ywb/tune.h"

namespace ywb::gui {

RunsTab::RunsTab(QWidget* parent) : QWidget(parent) {
  setObjectName("runsTab");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  folder_ = new QLineEdit(QDir::current().filePath("runs/detect"), this);
  folder_->setObjectName("runsFolder");
  auto* browse = new QPushButton(tr("Browse..."), this);
  auto* refresh_btn = new QPushButton(tr("Refresh"), this);
  metric_ = new QComboBox(this);
  metric_->addItems({"metrics/mAP50-95(B)", "metrics/mAP50(B)", "metrics/precision(B)", "metrics/recall(B)",
                     "train/box_loss", "train/cls_loss", "train/dfl_loss", "val/box_loss", "val/cls_loss",
                     "val/dfl_loss", "lr/pg0"});
  bar->addWidget(new QLabel(tr("Runs folder:"), this));
  bar->addWidget(folder_, 1);
  bar->addWidget(browse);
  bar->addWidget(refresh_btn);
  bar->addWidget(new QLabel(tr("Overlay:"), this));
  bar->addWidget(metric_);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName("runsSplitter");
  table_ = new QTableWidget(split);
  table_->setObjectName("runsTable");
  table_->setColumnCount(8);
  table_->setHorizontalHeaderLabels({tr("Run"), tr("Epochs"), tr("Best epoch"), tr("mAP50-95"), tr("mAP50"),
                                     tr("P"), tr("R"), tr("Model")});
  table_->horizontalHeaderItem(3)->setToolTip(
      tr("COCO-exact mAP50-95 of the best epoch: the epoch whose weights are in weights/best (highest "
         "fitness = mAP50-95, as Ultralytics 8.3 selects)"));
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSortingEnabled(false);
  views_ = new QTabWidget(split);
  views_->setObjectName("runsViews");
  chart_ = new MetricChart(tr("Runs compared (COCO-exact mAP)"), tr("epoch"), QString(), views_);
  chart_->setObjectName("runsChart");
  pictures_ = new RunPictures(views_);
  views_->addTab(chart_, tr("Curves"));
  views_->addTab(pictures_, tr("Pictures"));
  split->addWidget(table_);
  split->addWidget(views_);
  layout->addWidget(split, 1);

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Runs folder"), folder_->text());
    if (!d.isEmpty()) setRunsFolder(d);
  });
  connect(refresh_btn, &QPushButton::clicked, this, &RunsTab::refresh);
  connect(folder_, &QLineEdit::editingFinished, this, &RunsTab::refresh);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &RunsTab::plotSelected);
  connect(metric_, &QComboBox::currentTextChanged, this, &RunsTab::plotSelected);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (row >= 0 && row < runs_.size()) Q_EMIT runActivated(runs_[row].dir);
  });
  refresh();
}

RunsTab::~RunsTab() {
  disconnectChildrenFrom(this);  // the folder field's focus-out in ~QWidget must not reach refresh()
}

void RunsTab::setRunsFolder(const QString& folder) {
  folder_->setText(folder);
  refresh();
}

QString RunsTab::runsFolder() const {
  return folder_->text();
}

void RunsTab::refresh() {
  runs_.clear();
  const QDir dir(folder_->text());
  const auto add = [&](const QString& run_dir) {
    RunResults r;
    if (r.load(run_dir) || !r.error.isEmpty()) runs_ << r;  // unreadable: listed with why
  };
  for (const QFileInfo& fi : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time)) {
    if (!ywb::isTuneFolder(fi.absoluteFilePath().toStdString())) {
      add(fi.absoluteFilePath());
      continue;
    }
    // A tune folder (`ywb tune`): its iterations' runs, iter1, iter2, ... in order, named tune/iterN.
    QDir tune(fi.absoluteFilePath());
    QStringList iters = tune.entryList({"iter*"}, QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(iters.begin(), iters.end(),
              [](const QString& a, const QString& b) { return a.mid(4).toInt() < b.mid(4).toInt(); });
    for (const QString& it : iters) add(tune.filePath(it));
  }
  const QSignalBlocker block(table_);
  table_->clearContents();
  table_->setRowCount(runs_.size());
  for (int row = 0; row < runs_.size(); ++row) {
    const RunResults& r = runs_[row];
    const int best = r.best;
    auto num = [&](const char* col) {
      const auto& v = r.values.value(col);
      return best >= 0 && best < v.size() ? QString::number(v[best], 'f', 4) : QString("-");
    };
    table_->setItem(row, 0, new QTableWidgetItem(dir.relativeFilePath(r.dir)));
    table_->item(row, 0)->setToolTip(r.error.isEmpty() ? r.dir : r.error);
    table_->setItem(row, 1, new QTableWidgetItem(QString::number(r.epochs())));
    const auto& epoch = r.values.value("epoch");
    table_->setItem(row, 2, new QTableWidgetItem(best >= 0 ? QString::number(int(epoch[best])) : "-"));
    table_->setItem(row, 3, new QTableWidgetItem(num("metrics/mAP50-95(B)")));
    table_->setItem(row, 4, new QTableWidgetItem(num("metrics/mAP50(B)")));
    table_->setItem(row, 5, new QTableWidgetItem(num("metrics/precision(B)")));
    table_->setItem(row, 6, new QTableWidgetItem(num("metrics/recall(B)")));
    table_->setItem(row, 7, new QTableWidgetItem(r.model.isEmpty() ? QString("-") : r.model));
  }
  if (!runs_.isEmpty()) table_->selectRow(0);
  plotSelected();
}

void RunsTab::plotSelected() {
  chart_->clearGraphs();
  chart_->clearData();
  const QString col = metric_->currentText();
  QList<int> rows;
  for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << i.row();
  std::sort(rows.begin(), rows.end());
  pictures_->setRun(!rows.isEmpty() && rows.front() < runs_.size() ? runs_[rows.front()].dir : QString());
  for (int row : rows) {
    if (row >= runs_.size()) continue;
    const RunResults& r = runs_[row];
    const int s =
        chart_->addSeries(QFileInfo(r.dir).fileName(), MetricChart::color(row), Qt::SolidLine, true);
    const auto& ep = r.values.value("epoch");
    const auto& v = r.values.value(col);
    for (int e = 0; e < v.size() && e < ep.size(); ++e) chart_->append(s, ep[e], v[e]);
  }
  chart_->yAxis->setLabel(col);
  chart_->refresh();
  if (rows.size() < 2) return;  // one run: the chart above; several: also the Training tab
  QVector<RunResults> selected;
  for (int row : rows)
    if (row < runs_.size()) selected << runs_[row];
  Q_EMIT runsSelected(selected);
}

}  // namespace ywb::gui
