// The Feature maps tab's work off the GUI thread: loading the model (weights or a fresh build) for the layer
// list, computing one layer's maps (or the head's score maps) for the image, and drawing them with
// statistics.
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

#include "feature_map_images.h"
#include "feature_maps_tab.h"
#include "ywb/model_loading.h"

namespace ywb::gui {
namespace {

constexpr int kMaxChannels = 64;  // channels drawn; the table lists them all

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
  std::vector<ywb::FeatureMap> head;  // the head's score maps per level, when a head entry was asked for
  int head_branch = -1;               // int(ywb::HeadBranch) of `head`
  bool end2end = false;               // the model's head has one-to-one branches
  int layers = 0;
  std::vector<ywb::ModelLayerRow> table;
  int trained_imgsz = 0;  // of weights loaded for this result (0: none loaded); the maps' default size
  int imgsz = 0;          // the size the maps were computed at
  // Drawn on the worker, so that the GUI thread only shows them: the picture (channelMosaic or
  // headScoreMosaic) and the statistics of every channel of `map` or of every level of `head`.
  QImage picture;
  std::vector<ChannelStats> stats;
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
      r.end2end = r.model->endToEnd();
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
            self->end2end_ = r.end2end;
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
  const int head = layer_->count() ? layer_->currentData(kHeadBranchRole).toInt() : wanted_head_;
  QPointer<FeatureMapsTab> self(this);
  workers_.start(
      "ywb-feature-maps", [self, cached, key, weights, yaml = model_yaml_, img, layer, head, imgsz] {
        Result r;
        r.key = key;
        try {
          r.model = cached;
          r.imgsz = imgsz;
          if (!r.model) r.model = loadModel(weights, yaml, &r.trained_imgsz);
          r.layers = r.model->tappableLayers();
          r.table = r.model->layerTable();
          r.end2end = r.model->endToEnd();
          const QImage rgb = img.convertToFormat(QImage::Format_RGB888);
          ywb::RgbView in;
          in.width = rgb.width();
          in.height = rgb.height();
          in.pixels = rgb.constBits();
          in.row_bytes = rgb.bytesPerLine();
          if (head >= 0) {
            // Weights without a one-to-one branch (loaded since the entry was picked) show their only head.
            const auto branch = r.end2end ? ywb::HeadBranch(head) : ywb::HeadBranch::OneToMany;
            r.head = ywb::extractHeadScoreMaps(*r.model, in, branch, imgsz);
            r.head_branch = int(branch);
          } else {
            auto maps = ywb::extractFeatureMaps(*r.model, in, {std::min(layer, r.layers - 1)}, imgsz);
            if (!maps.empty()) r.map = std::move(maps.front());
          }
          if (!r.head.empty()) {
            for (const auto& level : r.head) r.stats.push_back(channelStats(level, 0));
            r.picture = headScoreMosaic(r.head);
          } else if (r.map.channels > 0) {
            for (int c = 0; c < r.map.channels; ++c) r.stats.push_back(channelStats(r.map, c));
            r.picture = channelMosaic(r.map, kMaxChannels, r.stats);
          }
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
      end2end_ = r.end2end;
      fillLayers();
      QTimer::singleShot(0, this, &FeatureMapsTab::compute);
      return;
    }
  }
  if (layer_->count() == 0 || r.table.size() != table_.size() || r.end2end != end2end_) {  // a new model
    table_ = r.table;
    end2end_ = r.end2end;
    wanted_layer_ = r.head.empty() ? r.map.layer : r.head.front().layer;
    wanted_head_ = r.head_branch;
    fillLayers();
  }
  mosaic_ = r.picture;
  if (r.head.empty()) {
    showLayerMaps(r);
  } else {
    showHeadMaps(r);
  }
  view_->setPixmap(
      QPixmap::fromImage(mosaic_).scaled(view_->size(), Qt::KeepAspectRatio, Qt::FastTransformation));
  const bool from_snapshot = r.key.startsWith("ema-snapshot@");
  snapshots_shown_ += from_snapshot;
  if (from_snapshot)
    status_->setText(tr("EMA weights of the running training, %1: ").arg(QTime::currentTime().toString()) +
                     status_->text());
  Q_EMIT shown(true);
}

void FeatureMapsTab::showLayerMaps(const Result& r) {
  const ywb::FeatureMap& m = r.map;
  stats_->setHorizontalHeaderItem(0, new QTableWidgetItem(tr("Channel")));
  stats_->setRowCount(int(r.stats.size()));
  for (int c = 0; c < int(r.stats.size()); ++c) {
    const ChannelStats& s = r.stats[size_t(c)];
    const QStringList cells = {QString::number(c), QString::number(s.mean, 'g', 4),
                               QString::number(s.sd, 'g', 4), QString::number(s.lo, 'g', 4),
                               QString::number(s.hi, 'g', 4)};
    for (int col = 0; col < 5; ++col) stats_->setItem(c, col, new QTableWidgetItem(cells[col]));
  }
  status_->setText(
      tr("Layer %1 (%2): %3 channels of %4x%5%6; each tile scaled to its own min..max")
          .arg(m.layer)
          .arg(QString::fromStdString(m.module))
          .arg(m.channels)
          .arg(m.width)
          .arg(m.height)
          .arg(m.channels > kMaxChannels ? tr(", first %1 shown").arg(kMaxChannels) : QString()));
}

void FeatureMapsTab::showHeadMaps(const Result& r) {
  const std::vector<ywb::FeatureMap>& levels = r.head;
  const int branch = r.head_branch;
  stats_->setHorizontalHeaderItem(0, new QTableWidgetItem(tr("Level")));
  stats_->setRowCount(int(levels.size()));
  QStringList sizes;
  for (size_t i = 0; i < levels.size(); ++i) {
    const ywb::FeatureMap& m = levels[i];
    const ChannelStats& s = r.stats[i];
    const QString level = pyramidLevelName(m.stride);
    sizes << QString("%1 %2x%3").arg(level).arg(m.width).arg(m.height);
    const QStringList cells = {level, QString::number(s.mean, 'g', 4), QString::number(s.sd, 'g', 4),
                               QString::number(s.lo, 'g', 4), QString::number(s.hi, 'g', 4)};
    for (int col = 0; col < 5; ++col) stats_->setItem(int(i), col, new QTableWidgetItem(cells[col]));
  }
  const int layer = levels.empty() ? 0 : levels.front().layer;
  if (!end2end_) {
    status_->setText(
        tr("Layer %1 (Detect): each anchor's best class score (the sigmoid of its class logits, "
           "maximum over the classes) at %2; one colour scale for every level, from 0 to the highest score")
            .arg(layer)
            .arg(sizes.join(", ")));
    return;
  }
  const QString name = branch == int(ywb::HeadBranch::OneToOne) ? tr("one-to-one") : tr("one-to-many");
  status_->setText(
      tr("Layer %1 (Detect, %2 branch): each anchor's best class score (the sigmoid of its class "
         "logits, maximum over the classes) at %3; one colour scale for every level, from 0 to the highest "
         "score")
          .arg(layer)
          .arg(name, sizes.join(", ")));
}

}  // namespace ywb::gui
