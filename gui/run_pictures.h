// The pictures of a run folder (what `plots=true` writes, ours or Ultralytics': results.png, the confusion
// matrices, the curves, train_batch and val_batch images, labels.jpg, ...), listed and shown one at a time,
// scaled to fit, in the Runs tab.
// Thread rules: GUI thread only. A picture is decoded on a worker thread (WorkerThreads) once it is chosen
// and the view is visible: a 1920 x 1920 train_batch took the GUI thread 50-80 ms to decode while a run
// trained (test_training_tab's stall bar is 50 ms), and the Runs tab is refreshed when a run ends.
#pragma once
#include <QImage>
#include <QStringList>
#include <QWidget>

#include "worker_threads.h"

class QComboBox;
class QLabel;

namespace ywb::gui {

/// The .png and .jpg files at the top of `run_dir`: results.png, the confusion matrices and the curves first
/// (in Ultralytics' order), then the others by name.
QStringList runPictureFiles(const QString& run_dir);

/// Paints one image scaled to fit its area, aspect kept, centred (scaled once per size, not per paint).
class PictureView : public QWidget {
 public:
  explicit PictureView(QWidget* parent = nullptr);
  void setImage(const QImage& image);
  const QImage& image() const { return image_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage image_, scaled_;
};

/// A chooser of the run's pictures above the picture chosen.
class RunPictures : public QWidget {
  Q_OBJECT
 public:
  explicit RunPictures(QWidget* parent = nullptr);
  ~RunPictures() override;
  /// Lists `run_dir`'s pictures and shows the first; an empty folder name clears it.
  void setRun(const QString& run_dir);
  QComboBox* chooser() const { return chooser_; }
  /// Whether the chosen picture is being decoded.
  bool loading() const { return loading_; }
  PictureView* view() const { return view_; }
  QLabel* note() const { return note_; }

 Q_SIGNALS:
  /// The chosen picture was decoded (or failed to): view() and note() say which.
  void pictureShown();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void show(int index);
  void load();

  QString dir_;
  int generation_ = 0;    // results of an older choice are dropped
  bool pending_ = false;  // chosen while hidden: decoded when shown
  bool loading_ = false;
  WorkerThreads workers_;
  QComboBox* chooser_ = nullptr;
  QLabel* note_ = nullptr;
  PictureView* view_ = nullptr;
};

}  // namespace ywb::gui
