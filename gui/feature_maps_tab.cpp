#include "feature_maps_tab.h"

#include <QCheckBox>
#include <QComboBox>
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
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <utility>

#include "opened_path.h"
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

// The model the tab shows: `weights` when given (and the size they were trained at, into `trained_imgsz`),
// else a fresh build of `yaml`. Throws ywb::Error as the engine's loaders do.
std::shared_ptr<ywb::ModelHandle> loadModel(const QString& weights, const QString& yaml, int* trained_imgsz) {
  if (weights.isEmpty())
    return std::make_shared<ywb::ModelHandle>(ywb::ModelHandle::create(yaml.toStdString()));
  ywb::LoadedModelInfo info;
  auto model = std::make_shared<ywb::ModelHandle>(ywb::loadModelHandle(weights.toStdString(), &info));
  *trained_imgsz = info.imgsz;
  return model;
}

}  // namespace

struct FeatureMapsTab::Result {
  QString error;
  QString key;
  std::shared_ptr<ywb::ModelHandle> model;
  ywb::FeatureMap map;
  int layers = 0;
  std::vector<ywb::ModelLayerRow> table;
  int trained_imgsz = 0;  // of weights loaded for this result (0: none loaded); the maps' default size
  int imgsz = 0;          // the size the maps were computed at
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
  layer_ = new QComboBox(this);
  layer_->setObjectName("fmLayer");
  layer_->setMinimumContentsLength(22);
  layer_->setToolTip(tr("Layer: index, module and output shape (channels x height x width) at the imgsz"));
  imgsz_ = new QSpinBox(this);
  imgsz_->setObjectName("fmImgsz");
  imgsz_->setRange(32, 1280);
  imgsz_->setSingleStep(32);
  imgsz_->setValue(320);
  imgsz_->setPrefix(tr("imgsz "));
  auto* show = new QPushButton(tr("Show"), this);
  show->setObjectName("fmShow");
  follow_ = new QCheckBox(tr("Follow training"), this);
  follow_->setObjectName("fmFollow");
  follow_->setToolTip(
      tr("While a run trains in this window, show the maps of its current EMA weights, "
         "refreshed every few seconds"));
  follow_timer_ = new QTimer(this);
  follow_timer_->setInterval(3000);
  grid->addWidget(new QLabel(tr("Weights"), this), 0, 0);
  grid->addWidget(weights_, 0, 1);
  grid->addWidget(wb, 0, 2);
  grid->addWidget(layer_, 0, 3);
  grid->addWidget(new QLabel(tr("Image"), this), 1, 0);
  grid->addWidget(image_, 1, 1);
  grid->addWidget(ib, 1, 2);
  grid->addWidget(imgsz_, 1, 3);
  grid->addWidget(show, 0, 4);
  grid->addWidget(follow_, 1, 4);
  grid->setColumnStretch(1, 1);
  layout->addLayout(grid);
  status_ = new QLabel(tr("Pick an image and a layer."), this);
  status_->setWordWrap(true);
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
    const QString p =
        QFileDialog::getOpenFileName(this, tr("Weights"), weights_->text(), weightsFileFilter());
    if (!p.isEmpty()) setWeights(p);
  });
  connect(ib, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Image"), image_->text(),
                                                   tr("Images (*.jpg *.jpeg *.png *.bmp)"));
    if (!p.isEmpty()) setImage(p);
  });
  connect(show, &QPushButton::clicked, this, &FeatureMapsTab::compute);
  connect(layer_, &QComboBox::activated, this, [this] {
    wanted_layer_ = layer_->currentData().toInt();
    compute();
  });
  connect(imgsz_, &QSpinBox::valueChanged, this, [this] { fillLayers(); });
  connect(follow_timer_, &QTimer::timeout, this, &FeatureMapsTab::followTick);
  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      follow_timer_->start();
      followTick();
    } else {
      follow_timer_->stop();
      snapshot_.reset();
    }
  });
  connect(weights_, &QLineEdit::editingFinished, this, &FeatureMapsTab::loadLayersAsync);
}

FeatureMapsTab::~FeatureMapsTab() = default;

void FeatureMapsTab::showMosaic() {
  if (mosaic_.isNull() || view_->width() < 8) return;
  view_->setPixmap(
      QPixmap::fromImage(mosaic_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::FastTransformation));
}

void FeatureMapsTab::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  QTimer::singleShot(0, this, &FeatureMapsTab::showMosaic);
  if (layer_->count() == 0)
    loadLayersAsync();  // the layer list of the current model  // after the layout has sized the view
}

void FeatureMapsTab::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  showMosaic();
}

bool FeatureMapsTab::useTrainedSize(int trained_imgsz) {
  if (trained_imgsz < imgsz_->minimum() || trained_imgsz > imgsz_->maximum()) return false;
  imgsz_->setValue(trained_imgsz);
  return true;
}

void FeatureMapsTab::setWeights(const QString& path) {
  weights_->setText(path);
  loadLayersAsync();
}
void FeatureMapsTab::setImage(const QString& path) {
  image_->setText(path);
}
void FeatureMapsTab::setLayer(int layer) {
  wanted_layer_ = layer;
  const int i = layer_->findData(layer);
  if (i >= 0) layer_->setCurrentIndex(i);
  compute();
}

void FeatureMapsTab::setSnapshotSource(std::function<bool()> request,
                                       std::function<std::shared_ptr<ywb::ModelHandle>()> latest) {
  snapshot_request_ = std::move(request);
  snapshot_latest_ = std::move(latest);
}

void FeatureMapsTab::setFollowTraining(bool on, int interval_ms) {
  follow_timer_->setInterval(interval_ms);
  follow_->setChecked(on);
}

void FeatureMapsTab::followTick() {
  if (!snapshot_request_ || !snapshot_latest_) return;
  // Take the copy asked for at the previous tick (the trainer makes it after its next step), ask for the
  // next one, and show the maps when it is new. Nothing heavy here: the maps are computed on a worker.
  std::shared_ptr<ywb::ModelHandle> latest = snapshot_latest_();
  const bool running = snapshot_request_();
  if (!running && !latest) {
    status_->setText(tr("Follow training: no run is training in this window."));
    return;
  }
  if (!latest || latest == snapshot_ || busy_) return;
  snapshot_ = std::move(latest);
  compute();
}

void FeatureMapsTab::fillLayers() {
  const QSignalBlocker block(layer_);
  layer_->clear();
  const int imgsz = imgsz_->value();
  for (const ywb::ModelLayerRow& row : table_) {
    if (row.module == "Detect") continue;  // the head is not tappable
    layer_->addItem(QString("%1  %2  %3")
                        .arg(row.index)
                        .arg(QString::fromStdString(row.module))
                        .arg(QString::fromStdString(ywb::layerOutputShape(row, imgsz))),
                    row.index);
  }
  const int i = layer_->findData(wanted_layer_);
  layer_->setCurrentIndex(i >= 0 ? i : 0);
}

void FeatureMapsTab::loadLayersAsync() {
  // The layer list needs the model: load it now (the image may come later); compute() reuses it.
  const QString weights = weights_->text();
  const QString key = weights.isEmpty()
                          ? "yaml:" + model_yaml_
                          : weights + "@" + QFileInfo(weights).lastModified().toString(Qt::ISODateWithMs);
  if (key == model_key_ || busy_) return;
  busy_ = true;
  QPointer<FeatureMapsTab> self(this);
  QThread* t = QThread::create([self, key, weights, yaml = model_yaml_] {
    Result r;
    r.key = key;
    try {
      r.model = loadModel(weights, yaml, &r.trained_imgsz);
      r.table = r.model->layerTable();
    } catch (const std::exception& e) {
      r.error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, r] {
          if (!self) return;
          self->busy_ = false;
          if (!r.error.isEmpty()) {
            self->status_->setText(tr("Feature maps failed: %1").arg(r.error));
            Q_EMIT self->logLine(self->status_->text());
          } else {
            self->model_ = r.model;
            self->model_key_ = r.key;
            self->table_ = r.table;
            self->useTrainedSize(r.trained_imgsz);
            self->fillLayers();
          }
          if (std::exchange(self->pending_, false)) self->compute();
        },
        Qt::QueuedConnection);
  });
  connect(t, &QThread::finished, t, &QObject::deleteLater);
  t->start();
}

void FeatureMapsTab::compute() {
  if (busy_) {
    pending_ = true;  // computed when the model load or computation under way finishes
    return;
  }
  if (image_->text().isEmpty()) return;
  QImage img(image_->text());
  if (img.isNull()) {
    status_->setText(tr("Cannot read %1").arg(image_->text()));
    return;
  }
  busy_ = true;
  status_->setText(tr("Computing..."));
  const QString weights = weights_->text();
  QString key = weights.isEmpty()
                    ? "yaml:" + model_yaml_
                    : weights + "@" + QFileInfo(weights).lastModified().toString(Qt::ISODateWithMs);
  std::shared_ptr<ywb::ModelHandle> cached = key == model_key_ ? model_ : nullptr;
  const bool from_snapshot = follow_->isChecked() && snapshot_;
  if (from_snapshot) {
    key = QString("ema-snapshot@%1").arg(quintptr(snapshot_.get()));
    cached = snapshot_;
  }
  const int layer = layer_->count() ? layer_->currentData().toInt() : wanted_layer_, imgsz = imgsz_->value();
  QPointer<FeatureMapsTab> self(this);
  QThread* t = QThread::create([self, cached, key, weights, yaml = model_yaml_, img, layer, imgsz] {
    Result r;
    r.key = key;
    try {
      r.model = cached;
      r.imgsz = imgsz;
      if (!r.model) r.model = loadModel(weights, yaml, &r.trained_imgsz);
      r.layers = r.model->tappableLayers();
      r.table = r.model->layerTable();
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
  if (std::exchange(pending_, false)) QTimer::singleShot(0, this, &FeatureMapsTab::compute);
  if (!r.error.isEmpty()) {
    status_->setText(tr("Feature maps failed: %1").arg(r.error));
    Q_EMIT logLine(status_->text());
    Q_EMIT shown(false);
    return;
  }
  if (r.key != model_key_) {
    model_ = r.model;
    model_key_ = r.key;
    // Weights seen for the first time: their training size, and the maps again at it.
    if (useTrainedSize(r.trained_imgsz) && r.imgsz != r.trained_imgsz) {
      table_ = r.table;
      fillLayers();
      QTimer::singleShot(0, this, &FeatureMapsTab::compute);
      return;
    }
  }
  if (layer_->count() == 0 || r.table.size() != table_.size()) {  // a new model: its layers
    table_ = r.table;
    wanted_layer_ = r.map.layer;
    fillLayers();
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
  const bool from_snapshot = r.key.startsWith("ema-snapshot@");
  snapshots_shown_ += from_snapshot;
  status_->setText(
      (from_snapshot ? tr("EMA weights of the running training, %1: ").arg(QTime::currentTime().toString())
                     : QString()) +
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
