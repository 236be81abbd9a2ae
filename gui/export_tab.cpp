#include "export_tab.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace ywb::gui {

ExportTab::ExportTab(QWidget* parent) : QWidget(parent) {
  setObjectName("exportTab");
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  auto* row = new QHBoxLayout;
  weights_ = new QLineEdit(this);
  weights_->setObjectName("exportWeights");
  weights_->setPlaceholderText(tr("a run's weights/best.safetensors"));
  auto* browse = new QPushButton(tr("Browse..."), this);
  row->addWidget(weights_, 1);
  row->addWidget(browse);
  form->addRow(tr("Weights"), row);
  safetensors_ = new QCheckBox(tr("safetensors (inference weights, Ultralytics key names)"), this);
  safetensors_->setChecked(true);
  onnx_ = new QCheckBox(tr("ONNX (static shapes, decoded output [1, 4+nc, anchors])"), this);
  onnx_->setChecked(true);
  form->addRow(tr("Formats"), safetensors_);
  form->addRow(QString(), onnx_);
  imgsz_ = new QSpinBox(this);
  imgsz_->setRange(0, 4096);
  imgsz_->setSingleStep(32);
  imgsz_->setSpecialValueText(tr("as trained"));
  form->addRow(tr("Image size"), imgsz_);
  opset_ = new QSpinBox(this);
  opset_->setRange(11, 21);
  opset_->setValue(17);
  form->addRow(tr("ONNX opset"), opset_);
  half_ = new QCheckBox(tr("fp16 weights"), this);
  form->addRow(QString(), half_);
  layout->addLayout(form);
  run_ = new QPushButton(tr("Export"), this);
  run_->setObjectName("exportButton");
  auto* note =
      new QLabel(tr("Runs `ywb export`; the exported model is checked by a second runtime there."), this);
  note->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(run_);
  bar->addWidget(note, 1);
  layout->addLayout(bar);
  output_ = new QPlainTextEdit(this);
  output_->setObjectName("exportOutput");
  output_->setReadOnly(true);
  output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(output_, 1);

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Weights"), weights_->text(),
                                                   tr("safetensors (*.safetensors)"));
    if (!p.isEmpty()) setWeights(p);
  });
  connect(run_, &QPushButton::clicked, this, &ExportTab::runExport);
}

void ExportTab::setWeights(const QString& path) {
  weights_->setText(path);
}

QString ExportTab::cliPath() {
  const QString here = QDir(QCoreApplication::applicationDirPath()).filePath("ywb");
  if (QFileInfo(here).isExecutable()) return here;
  const QString onPath = QStandardPaths::findExecutable("ywb");
  return onPath.isEmpty() ? QString("ywb") : onPath;
}

QStringList ExportTab::commandLine() const {
  QStringList formats;
  if (safetensors_->isChecked()) formats << "safetensors";
  if (onnx_->isChecked()) formats << "onnx";
  QStringList cmd = {cliPath(), "export", "weights=" + weights_->text(), "format=" + formats.join(',')};
  if (imgsz_->value() > 0) cmd << QString("imgsz=%1").arg(imgsz_->value());
  if (onnx_->isChecked()) cmd << QString("opset=%1").arg(opset_->value());
  if (half_->isChecked()) cmd << "half=true";
  return cmd;
}

void ExportTab::runExport() {
  if (process_ || weights_->text().isEmpty()) return;
  const QStringList cmd = commandLine();
  output_->appendPlainText("$ " + cmd.join(' '));
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyRead, this,
          [this] { output_->appendPlainText(QString::fromUtf8(process_->readAll()).trimmed()); });
  connect(process_, &QProcess::finished, this, [this](int code) {
    output_->appendPlainText(tr("[exit code %1]").arg(code));
    Q_EMIT logLine(tr("Export finished with exit code %1").arg(code));
    process_->deleteLater();
    process_ = nullptr;
    run_->setEnabled(true);
    Q_EMIT exportFinished(code);
  });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (!process_) return;
    output_->appendPlainText(tr("Could not run %1: %2").arg(process_->program(), process_->errorString()));
    if (e != QProcess::FailedToStart) return;  // otherwise finished() follows
    process_->deleteLater();
    process_ = nullptr;
    run_->setEnabled(true);
    Q_EMIT exportFinished(-1);
  });
  run_->setEnabled(false);
  process_->start(cmd.first(), cmd.mid(1));
}

}  // namespace ywb::gui
