// The Augmentation preview: a grid of augmented training samples with boxes (ywb::PreviewRenderer, which
// keeps the dataset scan), re-rendered on every parameter change and on "reroll". Renders run on a worker
// thread; changes made while one renders coalesce into one follow-up render. Its settings are a view of the
// TrainArgsModel it shares with the Hyperparameters tab.
// Thread rules: GUI thread; the renderer object is only touched by the render thread, which closing the tab
// waits for.
#pragma once
#include <QHash>
#include <QImage>
#include <QWidget>
#include <atomic>
#include <memory>

#include "train_args_model.h"
#include "worker_threads.h"
#include "ywb/augment.h"
#include "ywb/train_args.h"

class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace ywb {
class PreviewRenderer;
}

namespace ywb::gui {

class AugmentationTab : public QWidget {
  Q_OBJECT
 public:
  /// A view of `model`'s dataset, image size and augmentation settings (nullptr: a model of its own).
  explicit AugmentationTab(TrainArgsModel* model, QWidget* parent = nullptr);
  explicit AugmentationTab(QWidget* parent = nullptr) : AugmentationTab(nullptr, parent) {}
  ~AugmentationTab() override;
  void setDataset(const QString& yaml);
  /// The settings shown (the model's).
  const ywb::AugmentParams& params() const { return params_; }
  TrainArgsModel* model() const { return model_; }
  /// Draws new random samples.
  void reroll();
  const QImage& lastImage() const { return image_; }
  int rendersDone() const { return renders_; }
  double lastRenderMs() const { return last_ms_; }

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 Q_SIGNALS:
  void rendered(double ms);
  void logLine(const QString& line);

 private:
  void showModel();
  void requestRender();
  void startRender();
  void finishRender(const QImage& image, const QString& error, double ms, bool rect);

  QString yaml_;
  ywb::AugmentParams params_;
  int imgsz_ = 640;
  bool rect_ = false;  ///< the model's rect: one image per sample at its rectangular shape
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
  TrainArgsModel* model_ = nullptr;
  WorkerThreads workers_;  // the render under way
};

}  // namespace ywb::gui
