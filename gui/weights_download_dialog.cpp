#include "weights_download_dialog.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QSettings>
#include <QTimer>

namespace ywb::gui {

WeightsDownloadDialog::WeightsDownloadDialog(const QString& arg, ywb::WeightsFetchOptions options,
                                             QWidget* parent)
    : QProgressDialog(parent),
      arg_(arg),
      options_(std::move(options)),
      done_bytes_(std::make_shared<std::atomic<uint64_t>>(0)),
      total_bytes_(std::make_shared<std::atomic<uint64_t>>(0)),
      cancel_(std::make_shared<std::atomic<bool>>(false)) {
  setObjectName("weightsDownloadDialog");
  setWindowTitle(tr("Downloading weights"));
  if (options_.base_url.empty()) options_.base_url = ywb::weightsBaseUrl(baseUrlSetting().toStdString());
  const ywb::OfficialWeights* w = ywb::findOfficialWeights(arg.toStdString());
  const QString size = w ? QString::number(double(w->size_bytes) / 1e6, 'f', 1) + " MB" : QString();
  setLabelText(tr("Downloading %1 (%2%3)\nfrom %4/%1\n(Ultralytics' weights, AGPL-3.0)")
                   .arg(arg, w && !w->size_exact ? tr("about ") : QString(), size,
                        QString::fromStdString(options_.base_url)));
  setRange(0, 0);
  setAutoClose(false);
  setAutoReset(false);
  setMinimumDuration(300);
  timer_ = new QTimer(this);
  timer_->setInterval(100);
  connect(timer_, &QTimer::timeout, this, &WeightsDownloadDialog::poll);
  // Cancel only raises the flag: the worker's next progress callback stops the transfer, and the dialog
  // closes when the worker reports back.
  connect(this, &QProgressDialog::canceled, this, [this] {
    cancel_->store(true);
    setLabelText(tr("Cancelling ..."));
  });
}

WeightsDownloadDialog::~WeightsDownloadDialog() {
  cancel_->store(true);  // the transfer stops at its next progress callback
  workers_.cancelAndWait();
}

void WeightsDownloadDialog::start() {
  ywb::WeightsFetchOptions o = options_;
  auto done = done_bytes_, total = total_bytes_;
  auto cancel = cancel_;
  o.progress = [done, total, cancel](uint64_t d, uint64_t t) {
    done->store(d);
    total->store(t);
    return !cancel->load();
  };
  const std::string arg = arg_.toStdString();
  QPointer<WeightsDownloadDialog> self(this);
  workers_.start("ywb-weights-download", [self, o, arg] {
    QString path, error;
    try {
      path = QString::fromStdString(ywb::resolveWeights(arg, o));
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, path, error] {
          if (!self) return;
          self->finished_ = true;
          self->path_ = path;
          self->error_ = error;
          self->timer_->stop();
          self->hide();
          Q_EMIT self->done(error.isEmpty());
        },
        Qt::QueuedConnection);
  });
  timer_->start();
}

void WeightsDownloadDialog::poll() {
  const uint64_t total = total_bytes_->load(), done = done_bytes_->load();
  if (total == 0) return;
  // QProgressDialog counts in int: kilobytes keep 2 GB files in range.
  setRange(0, int(total / 1024));
  setValue(int(done / 1024));
}

QString WeightsDownloadDialog::baseUrlSetting() {
  return QSettings().value("weights/baseUrl").toString();
}

void WeightsDownloadDialog::editBaseUrlSetting(QWidget* parent) {
  bool ok = false;
  const QString url = QInputDialog::getText(
      parent, tr("Weights download address"),
      tr("Official weights are fetched from <address>/<file name>.\nEmpty: %1\n(%2 overrides this setting.)")
          .arg(QString::fromUtf8(ywb::kDefaultWeightsUrl), QString::fromUtf8(ywb::kWeightsUrlEnv)),
      QLineEdit::Normal, baseUrlSetting(), &ok);
  if (ok) QSettings().setValue("weights/baseUrl", url.trimmed());
}

QString WeightsDownloadDialog::resolve(QWidget* parent, const QString& arg, QString* error) {
  const std::string a = arg.trimmed().toStdString();
  try {
    if (!ywb::weightsNeedDownload(a)) return QString::fromStdString(ywb::resolveWeights(a));
  } catch (const std::exception& e) {  // an official-looking name we do not know
    *error = QString::fromUtf8(e.what());
    return {};
  }
  WeightsDownloadDialog dlg(arg.trimmed(), {}, parent);
  dlg.setWindowModality(Qt::WindowModal);
  QEventLoop loop;
  connect(&dlg, &WeightsDownloadDialog::done, &loop, &QEventLoop::quit);
  dlg.start();
  dlg.show();
  loop.exec();
  *error = dlg.error();
  return dlg.path();
}

}  // namespace ywb::gui
