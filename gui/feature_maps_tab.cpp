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
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <utility>

#include "official_weights_items.h"
#include "opened_path.h"
#include "teardown.h"
#include "weights_download_dialog.h"
#include "ywb/model_loading.h"

namespace ywb::gui {

FeatureMapsTab::FeatureMapsTab(QWidget* parent) : QWidget(parent) {
  setObjectName("featureMapsTab");
  auto* layout = new QVBoxLayout(this);
  auto* grid = new QGridLayout;
  // A path, or an official name (yolo11n.pt, ...) from the list with its size and whether it is downloaded.
  weights_box_ = new QComboBox(this);
  weights_box_->setObjectName("fmWeightsChooser");
  weights_box_->setEditable(true);
  weights_box_->setInsertPolicy(QComboBox::NoInsert);
  weights_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  weights_box_->setMinimumContentsLength(16);
  weights_box_->addItem(QString());  // an untrained model
  addOfficialWeightsItems(weights_box_);
  weights_box_->setCurrentIndex(0);
  weights_ = weights_box_->lineEdit();
  weights_->setObjectName("fmWeights");
  weights_->setPlaceholderText(
      tr("a run's weights/last.safetensors (EMA weights), or official weights by "
         "name; empty = untrained model"));
  image_ = new QLineEdit(this);
  image_->setObjectName("fmImage");
  auto* wb = new QPushButton(tr("Browse..."), this);
  auto* ib = new QPushButton(tr("Browse..."), this);
  layer_ = new QComboBox(this);
  layer_->setObjectName("fmLayer");
  layer_->setMinimumContentsLength(34);  // the head entries ("23  Detect  one-to-one: best class score") fit
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
  grid->addWidget(weights_box_, 0, 1);
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
    wanted_head_ = layer_->currentData(kHeadBranchRole).toInt();
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
  connect(weights_box_, &QComboBox::activated, this, &FeatureMapsTab::loadLayersAsync);
}

FeatureMapsTab::~FeatureMapsTab() {
  disconnectChildrenFrom(this);  // the weights field's focus-out in ~QWidget must not reach loadLayersAsync
  // A worker still building or running a model must not outlive the tab: at exit it would run on while
  // LibTorch's statics are torn down (seen: heap corruption, then a hang in the crash handler).
  workers_.cancelAndWait();
}

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
bool FeatureMapsTab::weightsFile(QString* file) {
  const QString typed = weights_->text().trimmed();
  if (typed.isEmpty() || resolving_) {
    *file = resolving_ ? QString() : typed;
    return !resolving_;
  }
  QString error;
  resolving_ = true;
  *file = WeightsDownloadDialog::resolve(this, typed, &error);
  resolving_ = false;
  refreshOfficialWeightsItems(weights_box_);  // "downloaded" now
  if (file->isEmpty()) {
    status_->setText(tr("Feature maps: no weights %1: %2").arg(typed, error));
    Q_EMIT logLine(status_->text());
    return false;
  }
  if (*file != typed) status_->setText(tr("Weights %1: %2 (the weights cache)").arg(typed, *file));
  return true;
}

void FeatureMapsTab::setImage(const QString& path) {
  image_->setText(path);
}
void FeatureMapsTab::setLayer(int layer) {
  wanted_layer_ = layer;
  wanted_head_ = -1;
  const int i = layer_->findData(layer);
  if (i >= 0 && layer_->itemData(i, kHeadBranchRole).toInt() < 0) layer_->setCurrentIndex(i);
  compute();
}

void FeatureMapsTab::setHeadMaps(ywb::HeadBranch branch) {
  wanted_head_ = int(branch);
  const int i = layer_->findData(wanted_head_, kHeadBranchRole);
  if (i >= 0) {
    layer_->setCurrentIndex(i);
    wanted_layer_ = layer_->currentData().toInt();
  }
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
    if (row.module == "Detect") {
      // The head: its best-class-score map per level (the shapes of the levels it reads, one channel), for
      // each branch it has.
      QStringList shapes;
      for (int f : row.from) {
        if (f < 0 || f >= int(table_.size())) continue;
        ywb::ModelLayerRow level = table_[size_t(f)];
        level.channels = 1;
        shapes << QString::fromStdString(ywb::layerOutputShape(level, imgsz));
      }
      const auto add = [&](const QString& what, ywb::HeadBranch branch) {
        layer_->addItem(QString("%1  Detect  %2  %3").arg(row.index).arg(what, shapes.join(", ")), row.index);
        layer_->setItemData(layer_->count() - 1, int(branch), kHeadBranchRole);
      };
      if (end2end_) {
        add(tr("one-to-one: best class score"), ywb::HeadBranch::OneToOne);
        add(tr("one-to-many: best class score"), ywb::HeadBranch::OneToMany);
      } else {
        add(tr("best class score"), ywb::HeadBranch::OneToMany);
      }
      continue;
    }
    layer_->addItem(QString("%1  %2  %3")
                        .arg(row.index)
                        .arg(QString::fromStdString(row.module))
                        .arg(QString::fromStdString(ywb::layerOutputShape(row, imgsz))),
                    row.index);
    layer_->setItemData(layer_->count() - 1, -1, kHeadBranchRole);
  }
  int i = wanted_head_ >= 0 ? layer_->findData(wanted_head_, kHeadBranchRole) : -1;
  if (wanted_head_ == int(ywb::HeadBranch::OneToOne) && i < 0)  // a model without one: its only head entry
    i = layer_->findData(int(ywb::HeadBranch::OneToMany), kHeadBranchRole);
  if (wanted_head_ < 0) i = layer_->findData(wanted_layer_);
  layer_->setCurrentIndex(i >= 0 ? i : 0);
}

}  // namespace ywb::gui
