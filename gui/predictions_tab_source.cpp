// The Predictions tab's prediction on a source without labels (images, a folder, a video, a .txt list or a
// pattern): ywb::predictImages on a worker thread, each image or video frame listed as soon as it is done.
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QSlider>
#include <QTabWidget>
#include <QTableWidget>
#include <cmath>
#include <set>

#include "box_image_view.h"
#include "metric_chart.h"
#include "predictions_tab.h"
#include "weights_download_dialog.h"
#include "ywb/error.h"

namespace ywb::gui {
namespace {
constexpr int kReidRole = Qt::UserRole + 1;  // the tracker item's with_reid
}  // namespace

QHBoxLayout* PredictionsTab::trackingControls() {
  track_ = new QCheckBox(tr("track objects"), this);
  track_->setObjectName("predTrack");
  track_->setToolTip(
      tr("Follow each object through a video's frames with the tracker beside (as ywb track): boxes are "
         "labelled id:N, the object's number in that video. Detections down to confidence %1 feed the "
         "tracker.")
          .arg(ywb::kTrackConf));
  tracker_ = new QComboBox(this);
  tracker_->setObjectName("predTracker");
  tracker_->addItem(tr("BoT-SORT"), "botsort.yaml");
  tracker_->addItem(tr("BoT-SORT + ReID"), "botsort.yaml");
  tracker_->setItemData(1, true, kReidRole);
  tracker_->addItem(tr("ByteTrack"), "bytetrack.yaml");
  tracker_->setToolTip(
      tr("The tracker (ywb track tracker=): BoT-SORT, Ultralytics' default, also moves each object's "
         "predicted box with the camera's motion between frames; with ReID (with_reid: True, model: auto) it "
         "also compares how overlapping objects look, by the detector's own features (the weights only, not "
         "an exported model); ByteTrack does neither"));
  persist_ = new QCheckBox(tr("one sequence"), this);
  persist_->setObjectName("predPersist");
  persist_->setToolTip(
      tr("Track all the source's files with one tracker, in file-name order (ywb track persist=true): for a "
         "folder of a video's frames saved as images. Unticked, each video and each image is tracked on its "
         "own."));
  connect(track_, &QCheckBox::toggled, this, [this](bool on) {
    // A tracked object whose score dips stays tracked down to the tracking confidence: the slider goes
    // there so that such objects stay drawn (it can be raised again).
    const int track_conf = int(std::lround(ywb::kTrackConf * 100));
    if (on && conf_->value() > track_conf) conf_->setValue(track_conf);
    if (from_source_) predict();  // tracking applies to a source's prediction, not to a validation
  });
  const auto again = [this] {
    if (from_source_ && track_->isChecked()) predict();
  };
  connect(tracker_, &QComboBox::currentIndexChanged, this, again);
  connect(persist_, &QCheckBox::toggled, this, again);
  auto* row = new QHBoxLayout;
  row->addWidget(track_);
  row->addWidget(tracker_);
  row->addWidget(persist_);
  return row;
}

void PredictionsTab::setSource(const QString& source) {
  source_->setText(source);
}

void PredictionsTab::predict() {
  if (busy_ || weights_->text().isEmpty() || source_->text().isEmpty()) return;
  QString fetch_error;
  const QString weights = WeightsDownloadDialog::resolve(this, weights_->text(), &fetch_error);
  if (weights.isEmpty()) {
    summary_->setText(tr("Prediction failed: %1").arg(fetch_error));
    Q_EMIT logLine(summary_->text());
    Q_EMIT predicted(false);
    return;
  }
  busy_ = true;
  // A source has no labels: no metrics, no confusion matrix, no curves.
  report_ = ywb::ValReport{};
  from_source_ = true;
  images_->clear();
  setClassTable(true);
  plotConfusion();
  plotPr();
  summary_->setText(tr("Predicting on %1 ...").arg(source_->text()));
  ywb::PredictOptions o;
  o.weights = weights.toStdString();
  o.source = source_->text().toStdString();
  // Every detection down to validation's threshold is kept (tracking's, when tracking); the confidence
  // slider chooses what is drawn.
  o.conf = ywb::ValOptions{}.conf;
  tracked_ = o.track = track_->isChecked();
  tracked_with_ = tracker_->currentText();
  if (o.track) {
    o.conf = ywb::kTrackConf;
    o.persist = persist_->isChecked();
    try {
      o.tracker = ywb::loadTrackerOptions(tracker_->currentData().toString().toStdString());
      o.tracker.with_reid = tracker_->currentData(kReidRole).toBool();
    } catch (const ywb::Error& e) {  // BoT-SORT in a build without camera-motion compensation
      busy_ = false;
      summary_->setText(tr("Prediction failed: %1").arg(QString::fromStdString(e.what())));
      Q_EMIT logLine(summary_->text());
      Q_EMIT predicted(false);
      return;
    }
  }
  o.iou = iou_->value() / 100.0;
  o.end2end = end2end_->isChecked();
  o.augment = augment_->isChecked();
  QPointer<PredictionsTab> self(this);
  o.on_result = [self, flag = workers_.cancelFlag()](const ywb::PredictReport& r) {
    if (flag->load()) throw ywb::Error("prediction cancelled");
    QMetaObject::invokeMethod(
        self,
        [self, d = r.images.back(), names = r.names] {
          if (self) self->addPrediction(d, names);
        },
        Qt::QueuedConnection);
  };
  workers_.start("ywb-predict", [self, o] {
    ywb::PredictReport r;
    QString error;
    try {
      r = ywb::predictImages(o);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    r.images.clear();  // each was handed over as it was done
    QMetaObject::invokeMethod(
        self,
        [self, r, error] {
          if (self) self->finishPrediction(r, error);
        },
        Qt::QueuedConnection);
  });
}

void PredictionsTab::addPrediction(const ywb::ImageDetections& d, const std::vector<std::string>& names) {
  report_.names = names;
  report_.detections.push_back(d);
  const QString file = QFileInfo(QString::fromStdString(d.path)).fileName();
  images_->addItem(d.frame > 0 ? (d.frames > 0 ? tr("%1  frame %2/%3").arg(file).arg(d.frame).arg(d.frames)
                                               : tr("%1  frame %2").arg(file).arg(d.frame))
                               : file);
  if (images_->count() == 1) images_->setCurrentRow(0);
}

void PredictionsTab::finishPrediction(const ywb::PredictReport& r, const QString& error) {
  busy_ = false;
  for (const auto& why : r.skipped) Q_EMIT logLine(tr("Skipped %1").arg(QString::fromStdString(why)));
  if (!error.isEmpty()) {
    summary_->setText(tr("Prediction failed: %1").arg(error));
    Q_EMIT logLine(summary_->text());
    Q_EMIT predicted(false);
    return;
  }
  const auto& dets = report_.detections;
  int frames = 0;
  double ms = 0;
  for (const auto& d : dets) frames += d.frame > 0, ms += d.ms;
  const int shown = showPredictionCounts();
  QString line = tr("%1 images and %2 video frames predicted: %3 detections at conf %4 or above, %5 ms per "
                    "image (model and post-processing)")
                     .arg(int(dets.size()) - frames)
                     .arg(frames)
                     .arg(shown)
                     .arg(confidence(), 0, 'f', 2)
                     .arg(dets.empty() ? 0.0 : ms / double(dets.size()), 0, 'f', 1);
  line += augmentNote(r.augmented);
  if (tracked_) {  // objects followed: the distinct ids of each video (an image is a video of one frame)
    std::set<std::pair<std::string, int>> ids;
    for (const auto& d : dets)
      for (const auto& b : d.boxes)
        if (b.track_id > 0) ids.insert({d.path, b.track_id});
    line += " " + tr("Tracked with %1: %2 objects followed.").arg(tracked_with_).arg(ids.size());
  }
  if (!r.skipped.empty()) line += "\n" + tr("%1 skipped (named in the log)").arg(r.skipped.size());
  summary_->setText(line);
  Q_EMIT logLine(line);
  Q_EMIT predicted(true);
}

void PredictionsTab::setClassTable(bool predictions) {
  const QStringList columns = predictions ? QStringList{tr("Class"), tr("Images"), tr("Detections")}
                                          : QStringList{tr("Class"), tr("Images"), tr("Instances"), tr("P"),
                                                        tr("R"),     tr("AP50"),   tr("AP50-95")};
  table_->setRowCount(0);
  table_->setColumnCount(int(columns.size()));
  table_->setHorizontalHeaderLabels(columns);
  right_->setTabText(right_->indexOf(table_), predictions ? tr("Per-class detections") : tr("Per-class AP"));
}

int PredictionsTab::showPredictionCounts() {
  // Per class: the images with at least one detection at or above the slider's confidence, and those
  // detections; the first row counts every class.
  const int nc = int(report_.names.size());
  std::vector<int> images(size_t(nc) + 1, 0), boxes(size_t(nc) + 1, 0);
  for (const auto& d : report_.detections) {
    std::vector<bool> seen(size_t(nc) + 1, false);
    for (const auto& b : d.boxes) {
      if (b.score < confidence() || b.cls < 0 || b.cls >= nc) continue;
      for (const size_t row : {size_t(0), size_t(b.cls) + 1}) {
        ++boxes[row];
        if (!seen[row]) seen[row] = true, ++images[row];
      }
    }
  }
  table_->setRowCount(0);
  for (int row = 0; row <= nc; ++row) {
    if (row > 0 && boxes[size_t(row)] == 0) continue;
    const int at = table_->rowCount();
    table_->insertRow(at);
    const QStringList cells = {row == 0 ? tr("all") : QString::fromStdString(report_.names[size_t(row) - 1]),
                               QString::number(images[size_t(row)]), QString::number(boxes[size_t(row)])};
    for (int col = 0; col < cells.size(); ++col) table_->setItem(at, col, new QTableWidgetItem(cells[col]));
  }
  return boxes[0];
}

QImage PredictionsTab::loadShown(const ywb::ImageDetections& d) const {
  if (d.frame <= 0) return QImage(QString::fromStdString(d.path));
  try {
    const ywb::RgbImage f = ywb::readVideoFrame(d.path, d.frame);
    return QImage(f.pixels.data(), f.width, f.height, f.width * 3, QImage::Format_RGB888).copy();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace ywb::gui
