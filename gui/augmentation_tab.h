// The Augmentation preview: a grid of augmented training samples with boxes (ywb::PreviewRenderer, which
// keeps the dataset scan), re-rendered on every parameter change and on "reroll". Renders run on a worker
// thread; changes made while one renders coalesce into one follow-up render.
// Thread rules: GUI thread; the renderer object is only touched by the render thread.
#pragma once
#include <QHash>
#include <QImage>
#include <QWidget>
#include <atomic>
#include <memory>

#include "ywb/augment.h"
#include "ywb/train_args.h"

class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QThreadPool;

namespace ywb {
class PreviewRenderer;
}

namespace ywb::gui {

class AugmentationTab : public QWidget {
  Q_OBJECT
 public:
  explicit AugmentationTab(QWidget* parent = nullptr);
  ~AugmentationTab() override;
  void setDataset(const QString& yaml);
  /// Shows these settings (from the Hyperparameters tab) and re-renders when they differ.
  void setParams(const ywb::AugmentParams& params, int imgsz);
  /// Takes the dataset, image size and augmentation settings from training arguments.
  void setArgs(const ywb::TrainArgs& args);
  const ywb::AugmentParams& params() const { return params_; }
  /// Draws new random samples.
  void reroll();
  const QImage& lastImage() const { return image_; }
  int rendersDone() const { return renders_; }
  double lastRenderMs() const { return last_ms_; }

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 Q_SIGNALS:
  /// The user changed one augmentation setting here (name is the Ultralytics name).
  void paramEdited(const QString& name, double value);
  void rendered(double ms);
  void logLine(const QString& line);

 private:
  void requestRender();
  void startRender();
  void finishRender(const QImage& image, const QString& error, double ms);

  QString yaml_;
  ywb::AugmentParams params_;
  int imgsz_ = 640;
  quint64 seed_ = 0;
  QHash<QString, QDoubleSpinBox*> editors_;
  QSpinBox* count_ = nullptr;
  QSpinBox* tile_ = nullptr;
  QLabel* view_ = nullptr;
  QLabel* status_ = nullptr;
  QImage image_;
  std::shared_ptr<ywb::PreviewRenderer> renderer_;  // shared with the render thread
  QString renderer_yaml_;
  bool busy_ = false, again_ = false;
  bool pending_ = false;  // a render was asked for while the tab was hidden
  int renders_ = 0;
  double last_ms_ = 0;
  bool syncing_ = false;
};

}  // namespace ywb::gui
