// The Feature maps tab's work off the GUI thread: loading the model (weights or a fresh build) for the layer
// list, computing one layer's maps for the image, and drawing them as a mosaic with per-channel statistics.
// Part of FeatureMapsTab (feature_maps_tab.h); results come back to the GUI thread queued.
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPointer>
#include <QSpinBox>
#include <QTableWidget>
#include <QTime>
#include <QTimer>
#include <cmath>
#include <utility>

#include "feature_maps_tab.h"
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

void FeatureMapsTab::loadLayersAsync() {
  // The layer list needs the model: load it now (the image may come later); compute() reuses it.
  QString weights;
  if (busy_ || !weightsFile(&weights)) return;
  const QString key = weights.isEmpty()
                          ? "yaml:" + model_yaml_
                          : weights + "@" + QFileInfo(weights).lastModified().toString(Qt::ISODateWithMs);
  if (key == model_key_ || busy_) return;
  busy_ = true;
  QPointer<FeatureMapsTab> self(this);
  workers_.start("ywb-feature-maps-load", [self, key, weights, yaml = model_yaml_] {
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
  const bool from_snapshot = follow_->isChecked() && snapshot_;
  QString weights;
  if (!from_snapshot && !weightsFile(&weights)) return;
  busy_ = true;
  status_->setText(tr("Computing..."));
  QString key = weights.isEmpty()
                    ? "yaml:" + model_yaml_
                    : weights + "@" + QFileInfo(weights).lastModified().toString(Qt::ISODateWithMs);
  std::shared_ptr<ywb::ModelHandle> cached = key == model_key_ ? model_ : nullptr;
  if (from_snapshot) {
    key = QString("ema-snapshot@%1").arg(quintptr(snapshot_.get()));
    cached = snapshot_;
  }
  const int layer = layer_->count() ? layer_->currentData().toInt() : wanted_layer_, imgsz = imgsz_->value();
  QPointer<FeatureMapsTab> self(this);
  workers_.start("ywb-feature-maps", [self, cached, key, weights, yaml = model_yaml_, img, layer, imgsz] {
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
