#include "augmentation_tab.h"

#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "ywb/preview.h"
#include "ywb/train_args.h"

namespace ywb::gui {

AugmentationTab::AugmentationTab(TrainArgsModel* model, QWidget* parent)
    : QWidget(parent), model_(model ? model : new TrainArgsModel(this)) {
  setObjectName("augmentationTab");
  auto* layout = new QHBoxLayout(this);
  auto* side = new QWidget(this);
  side->setMaximumWidth(320);
  auto* form = new QFormLayout(side);
  // Ranges and help come from the training-argument table: one list of arguments in the whole program.
  for (const ywb::ArgSpec& s : ywb::trainArgSpecs()) {
    if (s.group != "augmentation") continue;
    const QString name = QString::fromStdString(s.name);
    auto* ed = new QDoubleSpinBox(side);
    ed->setObjectName("aug_" + name);
    ed->setDecimals(s.max <= 0.01 ? 6 : 3);
    ed->setRange(s.min, s.max);
    ed->setSingleStep(s.max <= 0.01 ? 0.0001 : (s.max <= 1 ? 0.05 : 1.0));
    ed->setValue(params_.get(s.name));
    ed->setToolTip(QString::fromStdString(s.help) + "\n" + tr("range: %1 .. %2").arg(s.min).arg(s.max));
    auto* label = new QLabel(name, side);
    label->setToolTip(ed->toolTip());
    form->addRow(label, ed);
    editors_.insert(name, ed);
    connect(ed, &QDoubleSpinBox::valueChanged, this, [this, name](double v) {
      ywb::AugmentParams p = ywb::augmentParamsOf(model_->args());
      p.set(name.toStdString(), v);
      QString error;
      if (!model_->update(
              {name}, [&](ywb::TrainArgs& a) { ywb::applyAugmentParams(p, a); }, &error))
        status_->setText(error);
    });
  }
  count_ = new QSpinBox(side);
  count_->setRange(1, 16);
  count_->setValue(4);
  form->addRow(tr("samples"), count_);
  tile_ = new QSpinBox(side);
  tile_->setRange(64, 1280);
  tile_->setSingleStep(32);
  tile_->setValue(320);
  tile_->setToolTip(tr("Preview tile size (the training imgsz is used when it is smaller)"));
  form->addRow(tr("tile px"), tile_);
  auto* reroll_btn = new QPushButton(tr("Reroll"), side);
  reroll_btn->setObjectName("rerollButton");
  form->addRow(reroll_btn);
  status_ = new QLabel(tr("Open a dataset in the Dataset tab."), side);
  status_->setObjectName("augStatus");
  status_->setWordWrap(true);
  form->addRow(status_);
  connect(count_, &QSpinBox::valueChanged, this, [this] { requestRender(); });
  connect(tile_, &QSpinBox::valueChanged, this, [this] { requestRender(); });
  connect(reroll_btn, &QPushButton::clicked, this, &AugmentationTab::reroll);

  view_ = new QLabel(this);
  view_->setObjectName("augPreview");
  view_->setAlignment(Qt::AlignCenter);
  view_->setMinimumSize(320, 320);
  view_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  view_->setStyleSheet("background: #1a1d23;");
  layout->addWidget(side);
  layout->addWidget(view_, 1);
  connect(model_, &TrainArgsModel::changed, this, &AugmentationTab::showModel);
  showModel();
}

AugmentationTab::~AugmentationTab() {
  workers_.cancelAndWait();  // a render's result must not arrive at a destroyed tab
}

void AugmentationTab::setDataset(const QString& yaml) {
  if (yaml == yaml_) return;
  yaml_ = yaml;
  requestRender();
}

void AugmentationTab::showModel() {
  const ywb::TrainArgs& a = model_->args();
  const ywb::AugmentParams p = ywb::augmentParamsOf(a);
  bool changed = a.imgsz != imgsz_ || a.rect != rect_;
  imgsz_ = a.imgsz;
  rect_ = a.rect;
  for (const std::string& n : ywb::AugmentParams::names()) {
    const double v = p.get(n);
    if (v == params_.get(n)) continue;
    changed = true;
    if (auto* ed = editors_.value(QString::fromStdString(n))) {
      const QSignalBlocker block(ed);  // showing the model must not write back into it
      ed->setValue(v);
    }
  }
  params_ = p;
  if (!a.data.empty()) setDataset(QString::fromStdString(a.data));
  if (changed) requestRender();
}

void AugmentationTab::reroll() {
  ++seed_;
  requestRender();
}

void AugmentationTab::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (pending_) requestRender();
}

void AugmentationTab::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (!image_.isNull())
    view_->setPixmap(
        QPixmap::fromImage(image_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::SmoothTransformation));
}

void AugmentationTab::requestRender() {
  if (yaml_.isEmpty()) return;
  pending_ = !isVisible();  // hidden: render when shown, not while a run needs the CPU
  if (pending_) return;
  if (busy_) {
    again_ = true;  // coalesce: one more render with the newest settings when this one ends
    return;
  }
  startRender();
}

void AugmentationTab::startRender() {
  busy_ = true;
  again_ = false;
  status_->setText(tr("Rendering..."));
  ywb::PreviewOptions o;
  o.hyp = params_;
  o.imgsz = std::min(imgsz_, tile_->value());
  o.seed = seed_;
  o.count = count_->value();
  o.rect = rect_;
  const bool new_renderer = !renderer_ || renderer_yaml_ != yaml_;
  if (new_renderer) renderer_.reset();
  renderer_yaml_ = yaml_;
  QPointer<AugmentationTab> self(this);
  auto holder = std::make_shared<std::shared_ptr<ywb::PreviewRenderer>>(renderer_);
  workers_.start("ywb-augment-preview", [self, holder, o, yaml = yaml_] {
    QElapsedTimer clock;
    clock.start();
    QImage image;
    QString error;
    try {
      if (!*holder) *holder = std::make_shared<ywb::PreviewRenderer>(yaml.toStdString());
      const ywb::RgbImage rgb = (*holder)->render(o);
      image = QImage(rgb.rgb.data(), rgb.width, rgb.height, rgb.width * 3, QImage::Format_RGB888).copy();
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    QMetaObject::invokeMethod(
        self,
        [self, holder, image, error, ms, rect = o.rect] {
          if (!self) return;
          self->renderer_ = *holder;
          self->finishRender(image, error, ms, rect);
        },
        Qt::QueuedConnection);
  });
}

void AugmentationTab::finishRender(const QImage& image, const QString& error, double ms, bool rect) {
  busy_ = false;
  last_ms_ = ms;
  if (!error.isEmpty()) {
    status_->setText(tr("Preview failed: %1").arg(error));
    Q_EMIT logLine(status_->text());
  } else {
    image_ = image;
    ++renders_;
    view_->setPixmap(
        QPixmap::fromImage(image_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::SmoothTransformation));
    QString text =
        tr("Rendered %1 sample(s) in %2 ms (seed %3)").arg(count_->value()).arg(ms, 0, 'f', 0).arg(seed_);
    if (rect)
      text += "\n" + tr("rect=true: one image per sample at its own rectangular shape; no Mosaic, MixUp or "
                        "CutMix, as training");
    status_->setText(text);
    Q_EMIT rendered(ms);
  }
  if (again_) startRender();
}

}  // namespace ywb::gui
