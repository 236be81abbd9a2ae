// The Feature maps tab: pick weights (a run's checkpoint: its EMA weights), an image and a layer; see the
// layer's channels as a grid of heatmaps with per-channel statistics. The model loads and runs on a worker
// thread; the loaded model is kept for the next request with the same weights.
// Thread rules: GUI thread; the model handle is only used by one worker at a time (busy flag).
#pragma once
#include <QImage>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace ywb {
class ModelHandle;
}

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
  /// Computes and shows the maps (asynchronous; `shown` follows).
  void compute();
  const QImage& mosaic() const { return mosaic_; }
  QTableWidget* stats() const { return stats_; }

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 Q_SIGNALS:
  void shown(bool ok);
  void logLine(const QString& line);

 private:
  struct Result;
  void showResult(const Result& r);
  void showMosaic();

  QLineEdit* weights_ = nullptr;
  QLineEdit* image_ = nullptr;
  QSpinBox* layer_ = nullptr;
  QSpinBox* imgsz_ = nullptr;
  QLabel* view_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* stats_ = nullptr;
  QImage mosaic_;
  QString model_yaml_ = "yolov8n.yaml";
  std::shared_ptr<ywb::ModelHandle> model_;
  QString model_key_;
  bool busy_ = false;
};

}  // namespace ywb::gui
