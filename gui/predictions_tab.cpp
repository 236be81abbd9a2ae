#include "predictions_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "box_image_view.h"
#include "metric_chart.h"
#include "opened_path.h"
#include "weights_download_dialog.h"

namespace ywb::gui {

PredictionsTab::PredictionsTab(QWidget* parent) : QWidget(parent) {
  setObjectName("predictionsTab");
  auto* layout = new QVBoxLayout(this);
  auto* grid = new QGridLayout;
  weights_ = new QLineEdit(this);
  weights_->setObjectName("predWeights");
  weights_->setPlaceholderText(
      tr("weights/best.safetensors of a run (or exported weights, an ONNX graph or a TorchScript model)"));
  data_ = new QLineEdit(this);
  data_->setObjectName("predData");
  data_->setPlaceholderText(tr("data.yaml"));
  split_ = new QComboBox(this);
  split_->setObjectName("predSplit");
  split_->addItems({"val", "test", "train"});
  split_->setToolTip(tr("The dataset split to validate on (data.yaml's val, test or train)"));
  auto* browse = new QPushButton(tr("Browse..."), this);
  auto* run = new QPushButton(tr("Validate"), this);
  run->setObjectName("validateButton");
  conf_ = new QSlider(Qt::Horizontal, this);
  conf_->setRange(0, 100);
  conf_->setValue(25);
  iou_ = new QSlider(Qt::Horizontal, this);
  iou_->setRange(1, 99);
  iou_->setValue(70);
  conf_label_ = new QLabel(this);
  iou_label_ = new QLabel(this);
  end2end_ = new QCheckBox(tr("end-to-end (NMS-free)"), this);
  end2end_->setObjectName("predEnd2End");
  end2end_->setChecked(ywb::ValOptions{}.end2end);
  end2end_->setToolTip(
      tr("End-to-end models (YOLO26): ticked, the one-to-one head's detections without NMS; "
         "unticked, the one-to-many head with NMS at the IoU beside (end2end=false). "
         "Other models always use NMS."));
  augment_ = new QCheckBox(tr("test-time augmentation"), this);
  augment_->setObjectName("predAugment");
  augment_->setChecked(ywb::ValOptions{}.augment);
  augment_->setToolTip(
      tr("Ultralytics' augment=True: each image also runs mirrored at 0.83x and at 0.67x its size, and the "
         "three passes' boxes go through NMS together (two to three times the inference time). An end-to-end "
         "model's NMS-free head runs one pass, as in Ultralytics."));
  grid->addWidget(new QLabel(tr("Weights"), this), 0, 0);
  grid->addWidget(weights_, 0, 1);
  grid->addWidget(browse, 0, 2);
  grid->addWidget(new QLabel(tr("Data"), this), 1, 0);
  auto* data_row = new QHBoxLayout;  // the split beside the data.yaml it belongs to
  data_row->addWidget(data_, 1);
  data_row->addWidget(split_);
  grid->addLayout(data_row, 1, 1);
  grid->addWidget(run, 1, 2);
  source_ = new QLineEdit(this);
  source_->setObjectName("predSource");
  source_->setPlaceholderText(tr("images, a folder, a video or a .txt list"));
  source_->setToolTip(
      tr("An image, a video, a folder of them, a .txt list or a pattern such as images/*.jpg; no labels are "
         "needed"));
  auto* source_row = new QHBoxLayout;
  auto* pick_files = new QPushButton(tr("File..."), this);
  auto* pick_folder = new QPushButton(tr("Folder..."), this);
  source_row->addWidget(source_, 1);
  source_row->addWidget(pick_files);
  source_row->addWidget(pick_folder);
  auto* predict_button = new QPushButton(tr("Predict"), this);
  predict_button->setObjectName("predictButton");
  predict_button->setToolTip(tr("Detect objects in the source with these weights (as ywb predict source=)"));
  grid->addWidget(new QLabel(tr("Source"), this), 2, 0);
  grid->addLayout(source_row, 2, 1);
  grid->addWidget(predict_button, 2, 2);
  grid->addWidget(conf_label_, 0, 3);
  grid->addWidget(conf_, 0, 4);
  grid->addWidget(iou_label_, 1, 3);
  grid->addWidget(iou_, 1, 4);
  grid->addWidget(augment_, 0, 5);
  grid->addWidget(end2end_, 1, 5);
  grid->addLayout(trackingControls(), 2, 5);
  grid->setColumnStretch(1, 3);
  grid->setColumnStretch(4, 1);
  layout->addLayout(grid);
  summary_ = new QLabel(tr("Validate weights to see predictions (metrics are COCO-exact)."), this);
  summary_->setObjectName("predSummary");
  summary_->setWordWrap(true);
  layout->addWidget(summary_);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("predictionsSplitter");
  images_ = new QListWidget(split);
  images_->setObjectName("predImages");
  viewer_ = new BoxImageView(split);
  viewer_->setObjectName("predViewer");
  viewer_->setMessage(tr("Predicted boxes are solid, ground truth dashed white."));
  auto* right = new QTabWidget(split);
  right_ = right;
  table_ = new QTableWidget(right);
  table_->setObjectName("classApTable");
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  confusion_ = new QCustomPlot(right);
  confusion_->setObjectName("confusionMatrix");
  MetricChart::styleDark(confusion_);
  pr_ = new MetricChart(tr("Precision-recall at IoU 0.50 (COCO)"), tr("recall"), tr("precision"), right);
  pr_->setObjectName("prCurve");
  right->addTab(table_, QString());
  setClassTable(false);
  right->addTab(confusion_, tr("Confusion matrix"));
  right->addTab(pr_, tr("PR curve"));
  split->addWidget(images_);
  split->addWidget(viewer_);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 3);
  layout->addWidget(split, 1);

  auto labels = [this] {
    conf_label_->setText(tr("conf %1").arg(confidence(), 0, 'f', 2));
    iou_label_->setText(tr("NMS IoU %1").arg(iou_->value() / 100.0, 0, 'f', 2));
  };
  labels();
  connect(conf_, &QSlider::valueChanged, this, [this, labels] {
    labels();
    showImage(images_->currentRow());
    if (from_source_ && !busy_) showPredictionCounts();
  });
  connect(iou_, &QSlider::valueChanged, this, labels);
  // A new IoU or head runs again what is shown: the validation, or the prediction on the source.
  const auto again = [this] { from_source_ ? predict() : validate(); };
  connect(iou_, &QSlider::sliderReleased, this, again);
  connect(run, &QPushButton::clicked, this, &PredictionsTab::validate);
  connect(end2end_, &QCheckBox::toggled, this, again);
  connect(augment_, &QCheckBox::toggled, this, again);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p =
        QFileDialog::getOpenFileName(this, tr("Weights"), weights_->text(), inferenceFileFilter());
    if (!p.isEmpty()) setWeights(p);
  });
  connect(images_, &QListWidget::currentRowChanged, this, &PredictionsTab::showImage);
  connect(predict_button, &QPushButton::clicked, this, &PredictionsTab::predict);
  connect(pick_files, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Image, video or .txt list"), source_->text());
    if (!file.isEmpty()) setSource(file);
  });
  connect(pick_folder, &QPushButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Folder of images or videos"), source_->text());
    if (!dir.isEmpty()) setSource(dir);
  });
}

PredictionsTab::~PredictionsTab() {
  workers_.cancelAndWait();  // stops a validation at its next batch
}

double PredictionsTab::confidence() const {
  return conf_->value() / 100.0;
}
void PredictionsTab::setWeights(const QString& path) {
  weights_->setText(path);
}
void PredictionsTab::setDataset(const QString& yaml) {
  data_->setText(yaml);
}
void PredictionsTab::setEnd2End(bool on) {
  const QSignalBlocker block(end2end_);  // a setting, not a request to validate
  end2end_->setChecked(on);
}

void PredictionsTab::setSplit(const QString& split) {
  split_->setCurrentText(split);
}

void PredictionsTab::validate() {
  if (busy_ || weights_->text().isEmpty() || data_->text().isEmpty()) return;
  QString fetch_error;
  const QString weights =
      WeightsDownloadDialog::resolve(this, weights_->text(), &fetch_error);  // official names
  if (weights.isEmpty()) {
    summary_->setText(tr("Validation failed: %1").arg(fetch_error));
    Q_EMIT logLine(summary_->text());
    Q_EMIT validated(false);
    return;
  }
  busy_ = true;
  summary_->setText(tr("Validating %1 ...").arg(weights_->text()));
  ywb::ValOptions o;
  o.data = data_->text().toStdString();
  o.split = split_->currentText().toStdString();
  o.weights = weights.toStdString();
  o.iou = iou_->value() / 100.0;
  o.end2end = end2end_->isChecked();
  o.augment = augment_->isChecked();
  o.keep_detections = true;
  o.workers = 2;
  o.device = "";
  o.cancel = [flag = workers_.cancelFlag()] { return flag->load(); };
  QPointer<PredictionsTab> self(this);
  workers_.start("ywb-validate", [self, o] {
    ywb::ValReport r;
    QString error;
    try {
      r = ywb::validateWeights(o);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, r, error] {
          if (!self) return;
          self->busy_ = false;
          if (!error.isEmpty()) {
            self->summary_->setText(tr("Validation failed: %1").arg(error));
            Q_EMIT self->logLine(self->summary_->text());
            Q_EMIT self->validated(false);
          } else {
            self->showReport(r);
          }
        },
        Qt::QueuedConnection);
  });
}

QString PredictionsTab::validationPath(const ywb::ValReport& r) const {
  // Which head and post-processing gave these detections: what the engine reports it ran.
  if (r.nms_free)
    return tr(
        "End-to-end model, NMS-free: its one-to-one head's best detections (top-k). "
        "Untick end-to-end for its one-to-many head with NMS.");
  if (r.end2end_model)
    return tr("End-to-end model through its one-to-many head with NMS at IoU %1 (end2end=false).")
        .arg(iou_->value() / 100.0, 0, 'f', 2);
  return tr("Detections after NMS at IoU %1.").arg(iou_->value() / 100.0, 0, 'f', 2);
}

QString PredictionsTab::augmentNote(bool augmented) const {
  if (augmented) return " " + tr("Test-time augmented: 3 passes per image (1x, 0.83x mirrored, 0.67x).");
  if (augment_->isChecked())
    return " " + tr("Test-time augmentation does not apply to the NMS-free head (as in Ultralytics); untick "
                    "end-to-end to augment its one-to-many head.");
  return {};
}

void PredictionsTab::showReport(const ywb::ValReport& r) {
  report_ = r;
  from_source_ = false;
  setClassTable(false);
  iou_->setEnabled(!r.nms_free);  // no NMS ran: its IoU had no part in these detections
  iou_label_->setEnabled(!r.nms_free);
  const auto& m = r.metrics;
  // The post-processing time is named for what ran: NMS, or the NMS-free top-k selection.
  const QString line = r.nms_free
                           ? tr("%1 images, %2 instances: P %3  R %4  mAP50 %5  mAP50-95 %6 (COCO-exact)   "
                                "%7 ms inference + %8 ms top-k (no NMS) per image")
                           : tr("%1 images, %2 instances: P %3  R %4  mAP50 %5  mAP50-95 %6 (COCO-exact)   "
                                "%7 ms inference + %8 ms NMS per image");
  summary_->setText(line.arg(m.images)
                        .arg(m.instances)
                        .arg(m.precision, 0, 'f', 3)
                        .arg(m.recall, 0, 'f', 3)
                        .arg(m.map50, 0, 'f', 3)
                        .arg(m.map, 0, 'f', 3)
                        .arg(r.ms_inference, 0, 'f', 1)
                        .arg(r.ms_nms, 0, 'f', 1) +
                    "\n" + validationPath(r) + " " + tr("Run by %1.").arg(QString::fromStdString(r.runtime)) +
                    augmentNote(r.augmented));
  Q_EMIT logLine(summary_->text());
  table_->setRowCount(int(m.per_class.size()));
  for (int row = 0; row < int(m.per_class.size()); ++row) {
    const auto& c = m.per_class[size_t(row)];
    const QString name =
        c.cls < int(r.names.size()) ? QString::fromStdString(r.names[size_t(c.cls)]) : QString::number(c.cls);
    auto num = [](double v) { return v < 0 ? QString("-") : QString::number(v, 'f', 3); };
    const QStringList cells = {name,
                               QString::number(c.images),
                               QString::number(c.num_gt),
                               num(c.precision),
                               num(c.recall),
                               num(c.ap50),
                               num(c.ap)};
    for (int col = 0; col < cells.size(); ++col) table_->setItem(row, col, new QTableWidgetItem(cells[col]));
  }
  images_->clear();
  for (const auto& d : r.detections) images_->addItem(QFileInfo(QString::fromStdString(d.path)).fileName());
  if (!r.detections.empty()) images_->setCurrentRow(0);
  plotConfusion();
  plotPr();
  Q_EMIT validated(true);
}

void PredictionsTab::showImage(int index) {
  if (index < 0 || index >= int(report_.detections.size())) return;
  const ywb::ImageDetections& d = report_.detections[size_t(index)];
  const QImage img = loadShown(d);
  if (img.isNull()) {
    viewer_->setMessage(tr("Cannot read %1").arg(QString::fromStdString(d.path)));
    return;
  }
  auto name = [this](int c) {
    return c >= 0 && c < int(report_.names.size()) ? QString::fromStdString(report_.names[size_t(c)])
                                                   : QString::number(c);
  };
  QVector<ViewBox> boxes;
  for (const auto& g : d.truth)
    boxes << ViewBox{QRectF(QPointF(g.x1, g.y1), QPointF(g.x2, g.y2)), QString(), QColor(Qt::white), true};
  for (const auto& b : d.boxes) {
    if (b.score < confidence()) continue;
    const QString id = b.track_id > 0 ? QString("id:%1 ").arg(b.track_id) : QString();
    boxes << ViewBox{QRectF(QPointF(b.x1, b.y1), QPointF(b.x2, b.y2)),
                     id + QString("%1 %2").arg(name(b.cls)).arg(b.score, 0, 'f', 2),
                     BoxImageView::classColor(b.cls), false};
  }
  viewer_->setImage(img, boxes);
}

void PredictionsTab::plotConfusion() {
  confusion_->clearPlottables();
  const ywb::ConfusionMatrix& cm = report_.metrics.confusion;
  const int n = cm.num_classes + 1;
  if (cm.num_classes <= 0 || cm.counts.size() != size_t(n) * size_t(n)) return;
  auto* map = new QCPColorMap(confusion_->xAxis, confusion_->yAxis);
  map->data()->setSize(n, n);
  map->data()->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
  // Columns normalised by the true-class total, like Ultralytics' normalised confusion plot.
  for (int t = 0; t < n; ++t) {
    int64_t total = 0;
    for (int p = 0; p < n; ++p) total += cm.at(p, t);
    for (int p = 0; p < n; ++p)
      map->data()->setCell(t, p, total > 0 ? double(cm.at(p, t)) / double(total) : 0);
  }
  map->setGradient(QCPColorGradient::gpThermal);
  map->setDataRange(QCPRange(0, 1));
  map->setInterpolate(false);
  QSharedPointer<QCPAxisTickerText> tick(new QCPAxisTickerText);
  for (int i = 0; i < n; ++i)
    tick->addTick(i, i < cm.num_classes && i < int(report_.names.size())
                         ? QString::fromStdString(report_.names[size_t(i)])
                         : tr("background"));
  confusion_->xAxis->setTicker(tick);
  confusion_->yAxis->setTicker(tick);
  confusion_->xAxis->setTickLabelRotation(60);
  confusion_->xAxis->setLabel(tr("true class"));
  confusion_->yAxis->setLabel(tr("predicted class"));
  confusion_->xAxis->setRange(-0.5, n - 0.5);
  confusion_->yAxis->setRange(-0.5, n - 0.5);
  confusion_->replot(QCustomPlot::rpQueuedReplot);
}

void PredictionsTab::plotPr() {
  pr_->clearGraphs();
  pr_->clearData();
  const ywb::MetricCurves& c = report_.metrics.curves;
  if (c.recall.empty()) return;
  for (size_t k = 0; k < c.pr.size(); ++k) {
    if (c.pr[k].size() != c.recall.size()) continue;
    const QString name =
        k < report_.names.size() ? QString::fromStdString(report_.names[k]) : QString::number(k);
    QColor col = BoxImageView::classColor(int(k));
    col.setAlpha(140);
    const int s = pr_->addSeries(name, col);
    for (size_t i = 0; i < c.recall.size(); ++i) pr_->append(s, c.recall[i], c.pr[k][i]);
  }
  if (c.pr_mean.size() == c.recall.size()) {
    const int s = pr_->addSeries(tr("all classes"), QColor(Qt::white));
    pr_->graph(s)->setPen(QPen(Qt::white, 3));
    for (size_t i = 0; i < c.recall.size(); ++i) pr_->append(s, c.recall[i], c.pr_mean[i]);
  }
  pr_->refresh();
  pr_->xAxis->setRange(0, 1);
  pr_->yAxis->setRange(0, 1.02);
}

}  // namespace ywb::gui
