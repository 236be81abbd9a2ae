#include "run_pictures.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QVBoxLayout>

#include "ywb/plots.h"

namespace ywb::gui {

QStringList runPictureFiles(const QString& run_dir) {
  // Ultralytics' order of its result pictures (the engine's names for them); anything else (batches,
  // labels.jpg) follows by name.
  static const QStringList kFirst = [] {
    QStringList first{QString(resultsPlotStem()) + ".png"};
    for (const std::string& stem : metricPlotStems()) first << QString::fromStdString(stem) + ".png";
    return first;
  }();
  const QStringList all = QDir(run_dir).entryList({"*.png", "*.jpg", "*.jpeg"}, QDir::Files, QDir::Name);
  QStringList out;
  for (const QString& f : kFirst)
    if (all.contains(f)) out << f;
  for (const QString& f : all)
    if (!kFirst.contains(f)) out << f;
  return out;
}

PictureView::PictureView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 150);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void PictureView::setImage(const QImage& image) {
  image_ = image;
  scaled_ = {};
  update();
}

void PictureView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (image_.isNull()) return;
  const QSize fit = image_.size().scaled(size(), Qt::KeepAspectRatio);
  if (scaled_.size() != fit) scaled_ = image_.scaled(fit, Qt::KeepAspectRatio, Qt::SmoothTransformation);
  p.drawImage(QPoint((width() - fit.width()) / 2, (height() - fit.height()) / 2), scaled_);
}

RunPictures::RunPictures(QWidget* parent) : QWidget(parent) {
  setObjectName("runPictures");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  chooser_ = new QComboBox(this);
  chooser_->setObjectName("runPictureChooser");
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  note_ = new QLabel(this);
  note_->setObjectName("runPictureNote");
  bar->addWidget(new QLabel(tr("Picture:"), this));
  bar->addWidget(chooser_);
  bar->addWidget(note_, 1);
  layout->addLayout(bar);
  view_ = new PictureView(this);
  view_->setObjectName("runPictureView");
  layout->addWidget(view_, 1);
  connect(chooser_, &QComboBox::currentIndexChanged, this, &RunPictures::show);
}

void RunPictures::setRun(const QString& run_dir) {
  dir_ = run_dir;
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  if (!run_dir.isEmpty()) chooser_->addItems(runPictureFiles(run_dir));
  view_->setImage({});
  if (chooser_->count() == 0) {
    ++generation_;
    pending_ = loading_ = false;
    note_->setText(run_dir.isEmpty()
                       ? QString()
                       : tr("No pictures in this run (trained with plots=false, or before plots "
                            "were written)"));
    return;
  }
  chooser_->setCurrentIndex(0);
  show(0);
}

RunPictures::~RunPictures() {
  workers_.cancelAndWait();
}

void RunPictures::show(int index) {
  if (index < 0 || index >= chooser_->count()) return;
  ++generation_;
  pending_ = true;
  if (isVisible()) load();
}

void RunPictures::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (pending_) load();
}

void RunPictures::load() {
  pending_ = false;
  loading_ = true;
  const QString name = chooser_->currentText();
  const QString path = QDir(dir_).filePath(name);
  const int generation = generation_;
  note_->setText(tr("loading %1...").arg(name));
  QPointer<RunPictures> self(this);
  workers_.start("run picture", [self, path, name, generation] {
    QImageReader reader(path);
    const QImage image = reader.read();
    const QString error = reader.errorString();
    QMetaObject::invokeMethod(
        self,
        [self, image, error, name, generation] {
          if (!self || generation != self->generation_) return;
          self->loading_ = false;
          self->view_->setImage(image);
          self->note_->setText(image.isNull() ? tr("cannot read %1: %2").arg(name, error)
                                              : tr("%1 x %2").arg(image.width()).arg(image.height()));
          Q_EMIT self->pictureShown();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace ywb::gui
