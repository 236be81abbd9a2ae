#include "benchmark_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "opened_path.h"
#include "weights_download_dialog.h"
#include "ywb/error.h"
#include "ywb/inference.h"

namespace ywb::gui {

BenchmarkPanel::BenchmarkPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("benchmarkPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);  // a page of the Export tab's lower half: the window stays 768 high
  auto* row = new QHBoxLayout;
  data_ = new QLineEdit(this);
  data_->setObjectName("benchmarkData");
  data_->setPlaceholderText(tr("data.yaml whose split each export is validated on"));
  auto* browse = new QPushButton(tr("Data..."), this);
  run_ = new QPushButton(tr("Benchmark"), this);
  run_->setObjectName("benchmarkButton");
  run_->setToolTip(
      tr("Validates the weights, exports them to every format (safetensors, ONNX, ONNX fp16, TorchScript; "
         "YOLO26 also its one-to-many graph) into a new runs/detect/benchmark folder and validates each "
         "export the same way"));
  row->addWidget(new QLabel(tr("Data"), this));
  row->addWidget(data_, 1);
  row->addWidget(browse);
  row->addWidget(run_);
  layout->addLayout(row);
  status_ = new QLabel(this);
  status_->setObjectName("benchmarkStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  table_ = new QTableWidget(0, 7, this);
  table_->setObjectName("benchmarkTable");
  table_->setHorizontalHeaderLabels({tr("Format"), tr("Size (MB)"), tr("mAP50-95"), tr("mAP50"),
                                     tr("Inference (ms/im)"), tr("Total (ms/im)"),
                                     tr("Runtime, or why it failed")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table_, 1);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Data"), data_->text(), datasetFileFilter());
    if (!p.isEmpty()) setData(p);
  });
  connect(run_, &QPushButton::clicked, this, &BenchmarkPanel::start);
}

BenchmarkPanel::~BenchmarkPanel() {
  workers_.cancelAndWait();  // the benchmark stops after its current format
}

void BenchmarkPanel::setData(const QString& yaml) {
  data_->setText(yaml);
}

void BenchmarkPanel::start() {
  if (running_) return;
  if (weights_.isEmpty() || data_->text().isEmpty()) {
    status_->setText(tr("Choose the weights above and a data.yaml to benchmark on"));
    return;
  }
  QString error;  // an official name: fetched with a progress dialog first
  const QString weights = WeightsDownloadDialog::resolve(this, weights_, &error);
  if (weights.isEmpty()) {
    status_->setText(error);
    return;
  }
  FormatBenchmarkOptions o;
  o.weights = weights.toStdString();
  o.data = data_->text().toStdString();
  try {
    o.out_dir = newRunDir("runs/detect", "benchmark");  // as `ywb benchmark` names it, in the working folder
  } catch (const std::exception& e) {
    status_->setText(QString::fromUtf8(e.what()));
    return;
  }
  folder_ = QDir(QString::fromStdString(o.out_dir)).absolutePath();
  rows_.clear();
  table_->setRowCount(0);
  running_ = true;
  run_->setEnabled(false);
  status_->setText(tr("Benchmarking %1 on %2; exports in %3 ...").arg(weights, data_->text(), folder_));
  Q_EMIT logLine(status_->text());
  workers_.start("benchmarkWorker", [this, o, flag = workers_.cancelFlag()]() mutable {
    o.on_row = [this, flag](const FormatBenchmarkRow& r) {
      QMetaObject::invokeMethod(
          this, [this, r] { addRow(r); }, Qt::QueuedConnection);
      if (flag->load()) throw Error("benchmark stopped");
    };
    QString failure;
    try {
      writeBenchmarkFiles(benchmarkFormats(o), o.out_dir);
    } catch (const std::exception& e) {
      failure = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, failure] { finish(failure); }, Qt::QueuedConnection);
  });
}

void BenchmarkPanel::addRow(const FormatBenchmarkRow& r) {
  rows_.push_back(r);
  const int k = table_->rowCount();
  table_->insertRow(k);
  const auto cell = [&](int col, const QString& text, bool number) {
    auto* item = new QTableWidgetItem(text);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(k, col, item);
  };
  cell(0, QString::fromStdString(r.format), false);
  if (r.ok) {
    cell(1, QString::number(r.size_mb, 'f', 1), true);
    cell(2, QString::number(r.map, 'f', 4), true);
    cell(3, QString::number(r.map50, 'f', 4), true);
    cell(4, QString::number(r.ms_inference, 'f', 1), true);
    cell(5, QString::number(r.ms_total, 'f', 1), true);
    cell(6, QString::fromStdString(r.runtime), false);
  } else {
    cell(6, tr("failed: %1").arg(QString::fromStdString(r.error)), false);
    table_->item(k, 6)->setForeground(QColor(200, 40, 40));
  }
  table_->resizeColumnsToContents();
  Q_EMIT logLine(QString::fromStdString(benchmarkRowLine(r)));
}

void BenchmarkPanel::finish(const QString& error) {
  running_ = false;
  run_->setEnabled(true);
  int code = 0;
  if (!error.isEmpty()) {
    code = 1;
    status_->setText(tr("Benchmark failed: %1").arg(error));
  } else {
    int failed = 0;
    for (const auto& r : rows_) failed += !r.ok;
    code = failed ? 3 : 0;
    status_->setText(failed ? tr("%1 formats, %2 failed (see their rows); the table is in %3/benchmarks.txt")
                                  .arg(rows_.size())
                                  .arg(failed)
                                  .arg(folder_)
                            : tr("%1 formats, all validated; the table is in %2/benchmarks.txt")
                                  .arg(rows_.size())
                                  .arg(folder_));
  }
  Q_EMIT logLine(status_->text());
  Q_EMIT finished(code);
}

}  // namespace ywb::gui
