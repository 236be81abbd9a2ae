#include "feature_maps_tab.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "ywb/model_loading.h"

namespace ywb::gui {
namespace {

constexpr int kMaxChannels = 64;  // channels drawn; the table lists them all

// A perceptually ordered dark-blue -> teal -> yellow ramp (viridis-like endpoints).
QRgb heat(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const double r = std::clamp(-0.1 + 1.2 * t * t, 0.0, 1.0);
  const double g = std::clamp(0.05 + 0.85 * t, 0.0, 1.0);
  const double b = std::clamp(0.35 + 0.6 * std::sin(3.14159 * t) - 0.3 * t, 0.0, 1.0);
  return qRgb(int(r * 255), int(g * 255), int(b * 255));
}

}  // namespace

struct FeatureMapsTab::Result {
  QString error;
  QString key;
  std::shared_ptr<ywb::ModelHandle> model;
  ywb::FeatureMap map;
  int layers = 0;
};

FeatureMapsTab::FeatureMapsTab(QWidget* parent) : QWidget(parent) {
  setObjectName("featureMapsTab");
  auto* layout = new QVBoxLayout(this);
  auto* grid = new QGridLayout;
  weights_ = new QLineEdit(this);
  weights_->setObjectName("fmWeights");
  weights_->setPlaceholderText(tr("a run's weights/last.safetensors (EMA weights); empty = untrained model"));
  image_ = new QLineEdit(this);
  image_->setObjectName("fmImage");
  auto* wb = new QPushButton(tr("Browse..."), this);
  auto* ib = new QPushButton(tr("Browse..."), this);
  layer_ = new QSpinBox(this);
  layer_->setRange(0, 21);
  layer_->setPrefix(tr("layer "));
  imgsz_ = new QSpinBox(this);
  imgsz_->setRange(32, 1280);
  imgsz_->setSingleStep(32);
  imgsz_->setValue(320);
  imgsz_->setPrefix(tr("imgsz "));
  auto* show = new QPushButton(tr("Show"), this);
  show->setObjectName("fmShow");
  grid->addWidget(new QLabel(tr("Weights"), this), 0, 0);
  grid->addWidget(weights_, 0, 1);
  grid->addWidget(wb, 0, 2);
  grid->addWidget(layer_, 0, 3);
  grid->addWidget(new QLabel(tr("Image"), this), 1, 0);
  grid->addWidget(image_, 1, 1);
  grid->addWidget(ib, 1, 2);
  grid->addWidget(imgsz_, 1, 3);
  grid->addWidget(show, 0, 4, 2, 1);
  grid->setColumnStretch(1, 1);
  layout->addLayout(grid);
  status_ = new QLabel(tr("Pick an image and a layer."), this);
  status_->setObjectName("fmStatus");
  layout->addWidget(status_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("featureMapsSplitter");
  view_ = new QLabel(split);
  view_->setObjectName("fmView");
  view_->setAlignment(Qt::AlignCenter);
  view_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  view_->setStyleSheet("background: #1a1d23;");
  stats_ = new QTableWidget(split);
  stats_->setObjectName("fmStats");
  stats_->setColumnCount(5);
  stats_->setHorizontalHeaderLabels({tr("Channel"), tr("Mean"), tr("Std"), tr("Min"), tr("Max")});
  stats_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  stats_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  split->addWidget(view_);
  split->addWidget(stats_);
  stats_->setMaximumWidth(460);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(wb, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Weights"), weights_->text(),
                                                   tr("Weights (*.safetensors *.pt)"));
    if (!p.isEmpty()) setWeights(p);
  });
  connect(ib, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Image"), image_->text(),
                                                   tr("Images (*.jpg *.jpeg *.png *.bmp)"));
    if (!p.isEmpty()) setImage(p);
  });
  connect(show, &QPushButton::clicked, this, &FeatureMapsTab::compute);
  connect(layer_, &QSpinBox::valueChanged, this, &FeatureMapsTab::compute);
}

FeatureMapsTab::~FeatureMapsTab() = default;

void FeatureMapsTab::showMosaic() {
  if (mosaic_.isNull() || view_->width() < 8) return;
  view_->setPixmap(
      QPixmap::fromImage(mosaic_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::FastTransformation));
}

void FeatureMapsTab::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  QTimer::singleShot(0, this, &FeatureMapsTab::showMosaic);  // after the layout has sized the view
}

void FeatureMapsTab::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  showMosaic();
}

void FeatureMapsTab::setWeights(const QString& path) {
  weights_->setText(path);
}
void FeatureMapsTab::setImage(const QString& path) {
  image_->setText(path);
}
void FeatureMapsTab::setLayer(int layer) {
  layer_->setValue(layer);
}

void FeatureMapsTab::compute() {
  if (busy_ || image_->text().isEmpty()) return;
  QImage img(image_->text());
  if (img.isNull()) {
    status_->setText(tr("Cannot read %1").arg(image_->text()));
    return;
  }
  busy_ = true;
  status_->setText(tr("Computing..."));
  const QString weights = weights_->text();
  const QString key = weights.isEmpty()
                          ? "yaml:" + model_yaml_
                          : weights + "@" + QFileInfo(weights).lastModified().toString(Qt::ISODateWithMs);
  std::shared_ptr<ywb::ModelHandle> cached = key == model_key_ ? model_ : nullptr;
  const int layer = layer_->value(), imgsz = imgsz_->value();
  QPointer<FeatureMapsTab> self(this);
  QThread* t = QThread::create([self, cached, key, weights, yaml = model_yaml_, img, layer, imgsz] {
    Result r;
    r.key = key;
    try {
      r.model = cached;
      if (!r.model) {
        r.model = weights.isEmpty()
                      ? std::make_shared<ywb::ModelHandle>(ywb::ModelHandle::create(yaml.toStdString()))
                      : std::make_shared<ywb::ModelHandle>(ywb::loadModelHandle(weights.toStdString()));
      }
      r.layers = r.model->tappableLayers();
      const QImage rgb = img.convertToFormat(QImage::Format_RGB888);
      ywb::RgbView in;
      in.width = rgb.width();
      in.height = rgb.height();
      in.pixels = rgb.constBits();
      in.row_bytes = rgb.bytesPerLine();
      auto maps = ywb::extractFeatureMaps(*r.model, in, {std::min(layer, r.layers - 1)}, imgsz);
      if (!maps.empty()) r.map = std::move(maps.front());
    } catch (const std::exception& e) {
      r.error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, r] {
          if (self) self->showResult(r);
        },
        Qt::QueuedConnection);
  });
  connect(t, &QThread::finished, t, &QObject::deleteLater);
  t->start();
}

void FeatureMapsTab::showResult(const Result& r) {
  busy_ = false;
  if (!r.error.isEmpty()) {
    status_->setText(tr("Feature maps failed: %1").arg(r.error));
    Q_EMIT logLine(status_->text());
    Q_EMIT shown(false);
    return;
  }
  model_ = r.model;
  model_key_ = r.key;
  {
    const QSignalBlocker block(layer_);
    layer_->setMaximum(std::max(0, r.layers - 1));
  }
  const ywb::FeatureMap& m = r.map;
  const int shown_channels = std::min(m.channels, kMaxChannels);
  const int cols = int(std::ceil(std::sqrt(double(std::max(1, shown_channels)))));
  const int rows = (shown_channels + cols - 1) / std::max(1, cols);
  const int gap = 2;
  mosaic_ = QImage(cols * (m.width + gap), std::max(1, rows) * (m.height + gap), QImage::Format_RGB32);
  mosaic_.fill(QColor(0x1a, 0x1d, 0x23));
  stats_->setRowCount(m.channels);
  const size_t plane = size_t(m.width) * size_t(m.height);
  for (int c = 0; c < m.channels; ++c) {
    const float* p = m.data.data() + size_t(c) * plane;
    double lo = p[0], hi = p[0], sum = 0, sq = 0;
    for (size_t i = 0; i < plane; ++i) {
      lo = std::min(lo, double(p[i]));
      hi = std::max(hi, double(p[i]));
      sum += p[i];
      sq += double(p[i]) * p[i];
    }
    const double mean = sum / double(plane), sd = std::sqrt(std::max(0.0, sq / double(plane) - mean * mean));
    const QStringList cells = {QString::number(c), QString::number(mean, 'g', 4), QString::number(sd, 'g', 4),
                               QString::number(lo, 'g', 4), QString::number(hi, 'g', 4)};
    for (int col = 0; col < 5; ++col) stats_->setItem(c, col, new QTableWidgetItem(cells[col]));
    if (c >= shown_channels) continue;
    const int ox = (c % cols) * (m.width + gap), oy = (c / cols) * (m.height + gap);
    const double range = hi > lo ? hi - lo : 1.0;  // each channel scaled to its own min..max
    for (int y = 0; y < m.height; ++y)
      for (int x = 0; x < m.width; ++x)
        mosaic_.setPixel(ox + x, oy + y, heat((p[size_t(y) * m.width + x] - lo) / range));
  }
  view_->setPixmap(
      QPixmap::fromImage(mosaic_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::FastTransformation));
  status_->setText(
      tr("Layer %1 (%2): %3 channels of %4x%5%6; each tile scaled to its own min..max")
          .arg(m.layer)
          .arg(QString::fromStdString(m.module))
          .arg(m.channels)
          .arg(m.width)
          .arg(m.height)
          .arg(m.channels > kMaxChannels ? tr(", first %1 shown").arg(kMaxChannels) : QString()));
  Q_EMIT shown(true);
}

}  // namespace ywb::gui
