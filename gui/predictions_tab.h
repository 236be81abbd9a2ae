// The Predictions tab: validates trained weights on a dataset split (ywb::validateWeights, on a worker
// thread) and shows each image with predicted and ground-truth boxes (confidence slider filters what is
// drawn; the IoU slider is the NMS IoU of the next validation), the per-class AP table, the confusion matrix
// and the PR curves. All mAP numbers are COCO-exact. Thread rules: GUI thread; validation reports back
// queued, and closing the tab cancels it (between batches) and waits for it.
#pragma once
#include <QWidget>

#include "worker_threads.h"
#include "ywb/inference.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSlider;
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
  const ywb::ValReport& report() const { return report_; }
  QTableWidget* classTable() const { return table_; }
  BoxImageView* viewer() const { return viewer_; }
  double confidence() const;

 Q_SIGNALS:
  void validated(bool ok);
  void logLine(const QString& line);

 private:
  void showReport(const ywb::ValReport& r);
  QString validationPath(const ywb::ValReport& r) const;
  void showImage(int index);
  void plotConfusion();
  void plotPr();

  QLineEdit* weights_ = nullptr;
  QLineEdit* data_ = nullptr;
  QCheckBox* end2end_ = nullptr;
  QComboBox* split_ = nullptr;
  QSlider* conf_ = nullptr;
  QSlider* iou_ = nullptr;
  QLabel* conf_label_ = nullptr;
  QLabel* iou_label_ = nullptr;
  QLabel* summary_ = nullptr;
  QListWidget* images_ = nullptr;
  BoxImageView* viewer_ = nullptr;
  QTableWidget* table_ = nullptr;
  QCustomPlot* confusion_ = nullptr;
  MetricChart* pr_ = nullptr;
  ywb::ValReport report_;
  bool busy_ = false;
  WorkerThreads workers_;  // the validation under way
};

}  // namespace ywb::gui
