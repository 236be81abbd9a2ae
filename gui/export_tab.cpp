#include "export_tab.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "benchmark_panel.h"
#include "opened_path.h"
#include "weights_download_dialog.h"

namespace ywb::gui {

// The outcome of one export, filled on the worker thread and read on the GUI thread after it finished.
struct ExportTab::Outcome {
  std::unique_ptr<ExportReport> report;
  QString error;
};

namespace {

QString shapeText(const ExportTensorSpec& t) {
  QStringList dims;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const bool sym = t.shape[i] < 0 && i < t.dim_names.size() && !t.dim_names[i].empty();
    dims << (sym ? QString::fromStdString(t.dim_names[i]) : QString::number(t.shape[i]));
  }
  return QString::fromStdString(t.name) + " [" + dims.join(", ") + "]";
}

QString verificationText(const ExportedFile& f) {
  const ExportVerification& v = f.verification;
  if (!v.ran) return QObject::tr("not run");
  return v.passed ? QObject::tr("PASSED") : QObject::tr("FAILED");
}

QString diffText(const ExportedFile& f) {
  const ExportVerification& v = f.verification;
  if (!v.ran || f.format == "safetensors") return QString();
  return QObject::tr("boxes %1 px, scores %2 (%3 images)")
      .arg(v.max_abs_diff_boxes, 0, 'g', 3)
      .arg(v.max_abs_diff_scores, 0, 'g', 3)
      .arg(v.images);
}

}  // namespace

ExportTab::ExportTab(QWidget* parent) : QWidget(parent) {
  setObjectName("exportTab");
  buildForm();
  syncEnabled();
}

ExportTab::~ExportTab() {
  // The engine call cannot be interrupted: this waits for a running export (its result is no longer wanted;
  // the files it writes are written atomically).
  workers_.cancelAndWait();
}

void ExportTab::buildForm() {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  auto* row = new QHBoxLayout;
  weights_ = new QLineEdit(this);
  weights_->setObjectName("exportWeights");
  weights_->setPlaceholderText(tr("a run's weights/best.safetensors (checkpoint or exported weights)"));
  auto* browse = new QPushButton(tr("Browse..."), this);
  row->addWidget(weights_, 1);
  row->addWidget(browse);
  form->addRow(tr("Weights"), row);
  safetensors_ = new QCheckBox(tr("safetensors (EMA state dict, Ultralytics key names, metadata)"), this);
  safetensors_->setObjectName("exportSafetensors");
  safetensors_->setChecked(true);
  onnx_ = new QCheckBox(tr("ONNX (fused graph, output [N, 4+nc, anchors], boxes xywh in pixels; YOLO26: see "
                           "below)"),
                        this);
  onnx_->setObjectName("exportOnnx");
  onnx_->setChecked(onnxExportAvailable());
  onnx_->setEnabled(onnxExportAvailable());
  if (!onnxExportAvailable()) onnx_->setToolTip(tr("This build has no ONNX (install libonnx-dev)"));
  torchscript_ = new QCheckBox(tr("TorchScript (fused model traced at a fixed size and batch, fp32)"), this);
  torchscript_->setObjectName("exportTorchScript");
  torchscript_->setToolTip(
      tr("Output as ONNX's; loads in LibTorch (torch::jit::load) and PyTorch "
         "(torch.jit.load), and in ywb val and predict"));
  form->addRow(tr("Formats"), safetensors_);
  form->addRow(QString(), onnx_);
  form->addRow(QString(), torchscript_);
  imgsz_ = new QSpinBox(this);
  imgsz_->setObjectName("exportImgsz");
  imgsz_->setRange(0, 4096);
  imgsz_->setSingleStep(32);
  imgsz_->setSpecialValueText(tr("as trained"));
  imgsz_->setToolTip(
      tr("ONNX and TorchScript input size; rounded up to a multiple of the model's largest stride"));
  form->addRow(tr("Image size"), imgsz_);
  half_ = new QCheckBox(tr("fp16 weights (ONNX: fp16 storage with Cast nodes, fp32 compute and I/O)"), this);
  half_->setObjectName("exportHalf");
  half_->setToolTip(tr("Off while TorchScript is chosen: it is traced in fp32"));
  form->addRow(tr("Precision"), half_);
  dynamic_ = new QCheckBox(tr("dynamic batch, height and width"), this);
  dynamic_->setObjectName("exportDynamic");
  form->addRow(tr("ONNX shapes"), dynamic_);
  batch_ = new QSpinBox(this);
  batch_->setObjectName("exportBatch");
  batch_->setRange(1, 256);
  batch_->setToolTip(tr("The fixed batch of a static ONNX graph and of a TorchScript model"));
  form->addRow(tr("Batch"), batch_);
  opset_ = new QSpinBox(this);
  opset_->setObjectName("exportOpset");
  opset_->setRange(12, 13);  // what the engine writes (ExportOptions::opset)
  opset_->setValue(12);
  form->addRow(tr("ONNX opset"), opset_);
  end2end_ =
      new QCheckBox(tr("YOLO26: NMS-free graph, output [N, max_det, 6] (x1, y1, x2, y2, score, class); "
                       "off: the one-to-many head as above"),
                    this);
  end2end_->setObjectName("exportEnd2End");
  end2end_->setChecked(ExportOptions{}.end2end);
  form->addRow(tr("End-to-end"), end2end_);
  verify_ = new QCheckBox(tr("read every export back; run ONNX and TorchScript against LibTorch"), this);
  verify_->setObjectName("exportVerify");
  verify_->setToolTip(
      tr("ONNX in OpenCV DNN (ONNX Runtime for YOLO26's end-to-end graph), TorchScript in "
         "LibTorch's TorchScript interpreter"));
  verify_->setChecked(true);
  form->addRow(tr("Verify"), verify_);
  auto* src_row = new QHBoxLayout;
  source_ = new QLineEdit(this);
  source_->setObjectName("exportVerifySource");
  source_->setPlaceholderText(tr("image or folder (empty: a synthetic image)"));
  auto* browse_src = new QPushButton(tr("Folder..."), this);
  verify_images_ = new QSpinBox(this);
  verify_images_->setObjectName("exportVerifyImages");
  verify_images_->setRange(1, 64);
  verify_images_->setValue(4);
  verify_images_->setSuffix(tr(" images"));
  src_row->addWidget(source_, 1);
  src_row->addWidget(browse_src);
  src_row->addWidget(verify_images_);
  form->addRow(tr("Verify on"), src_row);
  layout->addLayout(form);

  run_ = new QPushButton(tr("Export"), this);
  run_->setObjectName("exportButton");
  status_ = new QLabel(this);
  status_->setObjectName("exportStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* bar = new QHBoxLayout;
  bar->addWidget(run_);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);

  files_ = new QTableWidget(0, 7, this);
  files_->setObjectName("exportFiles");
  files_->setHorizontalHeaderLabels({tr("Format"), tr("File"), tr("Size"), tr("Input / output"),
                                     tr("Verification"), tr("Max |diff|"), tr("Time")});
  files_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  files_->setSelectionBehavior(QAbstractItemView::SelectRows);
  files_->verticalHeader()->setVisible(false);
  files_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  layout->addWidget(files_, 1);
  output_ = new QPlainTextEdit(this);
  output_->setObjectName("exportOutput");
  output_->setReadOnly(true);
  output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  // Below the files: the export's report as the command prints it, and the benchmark of every format.
  auto* pages = new QTabWidget(this);
  pages->setObjectName("exportPages");
  pages->addTab(output_, tr("Report"));
  benchmark_ = new BenchmarkPanel(this);
  pages->addTab(benchmark_, tr("Benchmark every format (ywb benchmark)"));
  layout->addWidget(pages, 1);
  connect(weights_, &QLineEdit::textChanged, benchmark_, &BenchmarkPanel::setWeights);
  connect(benchmark_, &BenchmarkPanel::logLine, this, &ExportTab::logLine);

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p =
        QFileDialog::getOpenFileName(this, tr("Weights"), weights_->text(), weightsFileFilter());
    if (!p.isEmpty()) setWeights(p);
  });
  connect(browse_src, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getExistingDirectory(this, tr("Verification images"), source_->text());
    if (!p.isEmpty()) setVerifySource(p);
  });
  connect(run_, &QPushButton::clicked, this, &ExportTab::startExport);
  for (QCheckBox* c : {onnx_, torchscript_, dynamic_, verify_})
    connect(c, &QCheckBox::toggled, this, &ExportTab::syncEnabled);
}

void ExportTab::syncEnabled() {
  const bool idle = !exporting_;
  const bool onnx = onnx_->isChecked(), ts = torchscript_->isChecked();
  for (QWidget* w : std::initializer_list<QWidget*>{weights_, safetensors_, torchscript_, imgsz_, verify_})
    w->setEnabled(idle);
  onnx_->setEnabled(idle && onnxExportAvailable());
  if (ts) half_->setChecked(false);  // TorchScript is traced in fp32 (ExportOptions::half refuses it)
  half_->setEnabled(idle && !ts);
  dynamic_->setEnabled(idle && onnx);
  // A dynamic graph has a symbolic batch; a TorchScript model always a fixed one.
  batch_->setEnabled(idle && ((onnx && !dynamic_->isChecked()) || ts));
  opset_->setEnabled(idle && onnx);
  end2end_->setEnabled(idle && (onnx || ts));
  source_->setEnabled(idle && (onnx || ts) && verify_->isChecked());
  verify_images_->setEnabled(idle && (onnx || ts) && verify_->isChecked());
  run_->setEnabled(idle);
}

void ExportTab::setWeights(const QString& path) {
  weights_->setText(path);
}

void ExportTab::setVerifySource(const QString& path) {
  source_->setText(path);
}

ExportOptions ExportTab::options() const {
  ExportOptions o;
  o.weights = weights_->text().trimmed().toStdString();
  o.formats.clear();
  if (safetensors_->isChecked()) o.formats.push_back("safetensors");
  if (onnx_->isChecked()) o.formats.push_back("onnx");
  if (torchscript_->isChecked()) o.formats.push_back("torchscript");
  o.imgsz = imgsz_->value();
  o.half = half_->isChecked();
  o.dynamic = dynamic_->isChecked();
  o.batch = batch_->value();
  o.opset = opset_->value();
  o.end2end = end2end_->isChecked();
  o.verify = verify_->isChecked();
  o.verify_source = source_->text().trimmed().toStdString();
  o.verify_images = verify_images_->value();
  return o;
}

void ExportTab::startExport() {
  if (exporting_) return;
  ExportOptions o = options();
  if (o.weights.empty()) {
    showError(tr("choose the weights to export"));
    return;
  }
  QString error;  // an official name: fetched with a progress dialog, exported beside the working folder
  const QString weights = WeightsDownloadDialog::resolve(this, QString::fromStdString(o.weights), &error);
  if (weights.isEmpty()) {
    showError(error);
    return;
  }
  if (weights.toStdString() != o.weights && o.out_dir.empty()) o.out_dir = QDir::currentPath().toStdString();
  o.weights = weights.toStdString();
  report_.reset();
  files_->setRowCount(0);
  status_->setStyleSheet(QString());
  status_->setText(tr("Exporting %1 ...").arg(QString::fromStdString(o.weights)));
  Q_EMIT logLine(status_->text());
  exporting_ = true;
  syncEnabled();
  // The engine call (load, fuse, build, write, verify with a second runtime) takes seconds to minutes.
  workers_.start("exportWorker", [this, o] {
    auto outcome = std::make_shared<Outcome>();
    try {
      outcome->report = std::make_unique<ExportReport>(exportWeights(o));
    } catch (const std::exception& e) {
      outcome->error = QString::fromUtf8(e.what());
    }
    // Queued to the tab: if the tab is being destroyed, its destructor is waiting for this job and the
    // posted call is dropped with the tab.
    QMetaObject::invokeMethod(
        this, [this, outcome] { finishExport(*outcome); }, Qt::QueuedConnection);
  });
}

void ExportTab::finishExport(Outcome& outcome) {
  exporting_ = false;
  syncEnabled();
  if (outcome.report)
    showReport(*outcome.report);
  else
    showError(outcome.error);
  report_ = std::move(outcome.report);
  int code = 1;
  if (report_) {
    code = 0;
    for (const auto& f : report_->files)
      if (f.verification.ran && !f.verification.passed) code = 3;
  }
  Q_EMIT exportFinished(code);
}

void ExportTab::showReport(const ExportReport& r) {
  files_->setRowCount(int(r.files.size()));
  const QLocale locale;
  for (int i = 0; i < int(r.files.size()); ++i) {
    const ExportedFile& f = r.files[size_t(i)];
    QStringList io;
    for (const auto& t : f.inputs) io << shapeText(t);
    for (const auto& t : f.outputs) io << QString::fromUtf8("\u2192 ") + shapeText(t);
    const QStringList cells = {QString::fromStdString(f.format),
                               QString::fromStdString(f.path),
                               locale.formattedDataSize(qint64(f.size)),
                               io.join("  "),
                               verificationText(f),
                               diffText(f),
                               tr("%1 s").arg(f.seconds, 0, 'f', 1)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(c == 4 ? QString::fromStdString(f.verification.method + "\n" + f.verification.note)
                              : QString::fromStdString(f.detail));
      if (c == 4 && f.verification.ran) item->setForeground(f.verification.passed ? Qt::darkGreen : Qt::red);
      files_->setItem(i, c, item);
    }
  }
  files_->resizeColumnsToContents();
  const QString text = QString::fromStdString(formatExportReport(r)).trimmed();
  output_->setPlainText(text);
  bool failed = false;
  for (const auto& f : r.files) failed = failed || (f.verification.ran && !f.verification.passed);
  status_->setStyleSheet(failed ? "color: #d04040;" : QString());
  status_->setText(failed ? tr("Exported, but a verification FAILED (see the report)")
                   : r.allVerified()
                       ? tr("Exported %n file(s), all verified", "", int(r.files.size()))
                       : tr("Exported %n file(s); not every check could run", "", int(r.files.size())));
  for (const QString& line : text.split('\n')) Q_EMIT logLine(line);
}

void ExportTab::showError(const QString& message) {
  status_->setStyleSheet("color: #d04040;");
  status_->setText(tr("Export failed: %1").arg(message));
  output_->setPlainText(status_->text());
  Q_EMIT logLine(status_->text());
}

}  // namespace ywb::gui
