// The Feature maps tab: pick weights (a run's checkpoint: its EMA weights, or official weights by name,
// downloaded on first use), an image and a layer from the
// model's layer table ("9  SPPF  256x20x20": index, module, output shape at the chosen imgsz); see the
// layer's channels as a grid of heatmaps with per-channel statistics. The last entries are the Detect head's
// maps: each anchor's best class score at P3, P4 and P5, for an end-to-end head (YOLO26) one entry per branch
// (one-to-one, one-to-many). The model loads and runs on a worker
// thread; the loaded model is kept for the next request with the same weights.
// "Follow training" refreshes the maps every few seconds from a copy of the running trainer's EMA weights
// (handed over by the engine, see ywb::Trainer::requestEmaSnapshot), computed on a worker thread.
// Thread rules: GUI thread; the model handle is only used by one worker at a time (busy flag).
#pragma once
#include <QImage>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "worker_threads.h"
#include "ywb/feature_maps.h"
#include "ywb/model_info.h"

class QCheckBox;
class QComboBox;
class QTimer;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace ywb::gui {

class FeatureMapsTab : public QWidget {
  Q_OBJECT
 public:
  explicit FeatureMapsTab(QWidget* parent = nullptr);
  ~FeatureMapsTab() override;
  void setWeights(const QString& path);
  void setImage(const QString& path);
  /// Model YAML used when no weights are given (random initialisation).
  void setModelYaml(const QString& yaml) { model_yaml_ = yaml; }
  void setLayer(int layer);
  /// Shows the head's best-class-score maps of `branch` (OneToOne only for an end-to-end model).
  void setHeadMaps(ywb::HeadBranch branch);
  /// Where "follow training" gets EMA weights: `request` asks for a fresh copy (false: no run in this
  /// process), `latest` returns the newest copy (nullptr: none yet).
  void setSnapshotSource(std::function<bool()> request,
                         std::function<std::shared_ptr<ywb::ModelHandle>()> latest);
  /// Turns "follow training" on or off; `interval_ms` is the refresh period (default 3 s).
  void setFollowTraining(bool on, int interval_ms = 3000);
  /// Maps shown from EMA snapshots so far.
  int snapshotsShown() const { return snapshots_shown_; }
  /// The layer chooser: one entry per tappable layer, its index in Qt::UserRole, then the head's entries
  /// (its index in Qt::UserRole and the branch, int(ywb::HeadBranch), in kHeadBranchRole; -1 for a layer).
  QComboBox* layers() const { return layer_; }
  /// Computes and shows the maps (asynchronous; `shown` follows).
  void compute();
  const QImage& mosaic() const { return mosaic_; }
  QTableWidget* stats() const { return stats_; }
  static constexpr int kHeadBranchRole = Qt::UserRole + 1;

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 Q_SIGNALS:
  void shown(bool ok);
  void logLine(const QString& line);

 private:
  struct Result;
  void showResult(const Result& r);
  /// Shows a layer's channels: statistics and status line (the picture was drawn on the worker).
  void showLayerMaps(const Result& r);
  /// Shows the head's per-level score maps of the result's branch (int(ywb::HeadBranch)).
  void showHeadMaps(const Result& r);
  void fillLayers();
  void followTick();
  void loadLayersAsync();
  /// Sets the image size to the one the loaded weights were trained at (as `ywb val` and `ywb predict` use
  /// it); false when there is none (no weights) or the spin box cannot show it.
  bool useTrainedSize(int trained_imgsz);
  void showMosaic();

  /// The weights to load: "" (an untrained model), a path as typed, or an official name's cached file,
  /// fetched first with a progress dialog. False (with the reason shown) when that failed or was cancelled.
  bool weightsFile(QString* file);

  QComboBox* weights_box_ = nullptr;  // editable: a path, or an official name from its list
  QLineEdit* weights_ = nullptr;      // the chooser's text field
  bool resolving_ = false;            // a download dialog is open (its event loop may call back in)
  WorkerThreads workers_;             // the one model load or computation under way (busy_), joined on close
  QLineEdit* image_ = nullptr;
  QComboBox* layer_ = nullptr;
  int wanted_layer_ = 0;  // kept while the list is being (re)filled
  int wanted_head_ = -1;  // with it: int(ywb::HeadBranch) of a head entry, -1 for a layer's output
  bool end2end_ = false;  // the loaded model's head has one-to-one branches
  QSpinBox* imgsz_ = nullptr;
  QLabel* view_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* stats_ = nullptr;
  QImage mosaic_;
  QString model_yaml_ = "yolov8n.yaml";
  std::shared_ptr<ywb::ModelHandle> model_;
  std::vector<ywb::ModelLayerRow> table_;  // the loaded model's layers
  QString model_key_;
  bool busy_ = false;
  bool pending_ = false;  // compute() was asked for while busy
  QCheckBox* follow_ = nullptr;
  QTimer* follow_timer_ = nullptr;
  std::function<bool()> snapshot_request_;
  std::function<std::shared_ptr<ywb::ModelHandle>()> snapshot_latest_;
  std::shared_ptr<ywb::ModelHandle> snapshot_;  // the EMA copy shown (or being computed)
  int snapshots_shown_ = 0;
};

}  // namespace ywb::gui
