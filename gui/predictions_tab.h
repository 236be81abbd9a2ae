// The Predictions tab: validates trained weights on a dataset split (ywb::validateWeights, on a worker
// thread) and shows each image with predicted and ground-truth boxes (confidence slider filters what is
// drawn; the IoU slider is the NMS IoU of the next validation), the per-class AP table, the confusion matrix
// and the PR curves. All mAP numbers are COCO-exact. It also predicts on a source without labels (images, a
// folder, a video, a .txt list or a pattern: ywb::predictImages, as `ywb predict source=`), listing each
// image and video frame as it is done. Thread rules: GUI thread; validation and prediction report back
// queued, and closing the tab cancels them (between batches, or between images and frames) and waits.
#pragma once
#include <QImage>
#include <QWidget>

#include "worker_threads.h"
#include "ywb/inference.h"

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QSlider;
class QTabWidget;
class QTableWidget;
class QCustomPlot;

namespace ywb::gui {

class BoxImageView;
class MetricChart;

class PredictionsTab : public QWidget {
  Q_OBJECT
 public:
  explicit PredictionsTab(QWidget* parent = nullptr);
  ~PredictionsTab() override;
  void setWeights(const QString& path);
  void setDataset(const QString& yaml);
  /// For an end-to-end model (YOLO26): true validates NMS-free from its one-to-one head, false from its
  /// one-to-many head with NMS (ValOptions::end2end). No effect on other models.
  void setEnd2End(bool on);
  /// The dataset split validated: val, test or train (a run's own from its args.yaml).
  void setSplit(const QString& split);
  /// Starts a validation run (asynchronous; `validated` follows).
  void validate();
  /// What predict() runs on: an image, a video, a folder, a .txt list or a pattern (PredictOptions::source).
  void setSource(const QString& source);
  /// Predicts with the weights on the source (asynchronous; each image or frame is listed as it is done,
  /// then `predicted` follows). No metrics: a source has no labels.
  void predict();
  const ywb::ValReport& report() const { return report_; }
  QTableWidget* classTable() const { return table_; }
  BoxImageView* viewer() const { return viewer_; }
  double confidence() const;

 Q_SIGNALS:
  void validated(bool ok);
  void predicted(bool ok);
  void logLine(const QString& line);

 private:
  /// The tracking controls (track objects, the tracker, one sequence) in a row, connected
  /// (predictions_tab_source.cpp).
  QHBoxLayout* trackingControls();
  void showReport(const ywb::ValReport& r);
  QString validationPath(const ywb::ValReport& r) const;
  /// What test-time augmentation did: a sentence when it ran, or when it was asked and the model's NMS-free
  /// path left it out; empty when not asked.
  QString augmentNote(bool augmented) const;
  void showImage(int index);
  void addPrediction(const ywb::ImageDetections& d, const std::vector<std::string>& names);
  void finishPrediction(const ywb::PredictReport& r, const QString& error);
  QImage loadShown(const ywb::ImageDetections& d) const;
  /// The class table's columns: a validation's per-class AP, or a prediction's detections per class.
  void setClassTable(bool predictions);
  /// A prediction's rows: all, then each class found, counted at the confidence slider's value. Returns
  /// the detections counted (the first row's).
  int showPredictionCounts();
  void plotConfusion();
  void plotPr();

  QLineEdit* weights_ = nullptr;
  QLineEdit* data_ = nullptr;
  QLineEdit* source_ = nullptr;
  QCheckBox* end2end_ = nullptr;
  QCheckBox* augment_ = nullptr;  // test-time augmentation (augment=true)
  QCheckBox* track_ = nullptr;    // track objects through videos (ywb track)
  QComboBox* tracker_ = nullptr;  // with which tracker (its tracker= name as the item's data)
  QCheckBox* persist_ = nullptr;  // one tracker for the whole source (persist=true)
  QComboBox* split_ = nullptr;
  QSlider* conf_ = nullptr;
  QSlider* iou_ = nullptr;
  QLabel* conf_label_ = nullptr;
  QLabel* iou_label_ = nullptr;
  QLabel* summary_ = nullptr;
  QListWidget* images_ = nullptr;
  BoxImageView* viewer_ = nullptr;
  QTableWidget* table_ = nullptr;
  QTabWidget* right_ = nullptr;  // the class table, confusion matrix and PR curve
  QCustomPlot* confusion_ = nullptr;
  MetricChart* pr_ = nullptr;
  ywb::ValReport report_;
  bool busy_ = false;
  bool from_source_ = false;  // the images shown are a prediction's (no labels), not a validation's
  bool tracked_ = false;      // that prediction tracked objects (track_ was ticked when it started)
  QString tracked_with_;      // and with which tracker (tracker_'s text then)
  WorkerThreads workers_;     // the validation or prediction under way
};

}  // namespace ywb::gui
