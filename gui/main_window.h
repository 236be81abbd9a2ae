// The main window: assembles the tabs and docks; holds no view logic of its own.
// Thread rules: GUI thread only.
#pragma once
#include <QMainWindow>

#include "worker_threads.h"

class QTabWidget;

namespace ywb::gui {

class AugmentationTab;
class DatasetTab;
class ExportTab;
class FeatureMapsTab;
class PredictionsTab;
class HyperparamsTab;
class RunsTab;
struct RunResults;
class LogView;
class SystemPanel;
class TrainingTab;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  QTabWidget* tabs() const { return tabs_; }
  SystemPanel* systemPanel() const { return system_; }
  LogView* log() const { return log_; }
  HyperparamsTab* hyperparams() const { return hyper_; }
  TrainingTab* training() const { return training_; }
  DatasetTab* dataset() const { return dataset_; }
  AugmentationTab* augmentation() const { return augment_; }
  RunsTab* runs() const { return runs_; }
  FeatureMapsTab* featureMaps() const { return features_; }
  PredictionsTab* predictions() const { return predictions_; }
  ExportTab* exporter() const { return export_; }
  /// Opens what `path` is (see classifyPath): a data.yaml in the Dataset tab (and as `data`), a run folder
  /// as it was (Training charts from its results.csv, its dataset from args.yaml, its weights), weights in
  /// Predictions/Feature maps/Export, or training arguments in the Hyperparameters tab. Anything else is a
  /// message in the log and the status bar. False then.
  bool openPath(const QString& path);
  /// File > Open... and File > Open folder...: a file chooser (filters from openableFileFilter), then
  /// openPath. The chooser starts in the folder of the last path opened.
  void openFileDialog();
  void openFolderDialog();
  /// The quick start (ywb::quickStart's settings): generates the shapes dataset when missing (off the GUI
  /// thread), opens it, fills in the training arguments and shows the Training tab, ready to press Start.
  /// `dataset_folder` empty = the quick start's own folder (datasets/shapes-quick under the working folder).
  void startQuickStart(const QString& dataset_folder = QString());
  /// Remembers the window geometry, dock layout and splitter positions (QSettings); also done on close.
  void saveLayout();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildTabs();
  void buildDocks();
  void buildMenus();
  void restoreLayout();
  void showRunWeights(const QString& run_dir);
  /// Opens a run folder everywhere it shows (see openPath); returns what could not be read ("" when all).
  QString openRun(const QString& run_dir);
  /// A run's args.yaml into the Hyperparameters tab (`data_yaml`: its dataset where found, "" = as written).
  void showRunArgs(const RunResults& run, const QString& data_yaml);
  void openQuickStartDataset(const QString& yaml);
  QString lastOpenedFolder() const;

  QTabWidget* tabs_ = nullptr;
  SystemPanel* system_ = nullptr;
  LogView* log_ = nullptr;
  HyperparamsTab* hyper_ = nullptr;
  TrainingTab* training_ = nullptr;
  DatasetTab* dataset_ = nullptr;
  AugmentationTab* augment_ = nullptr;
  RunsTab* runs_ = nullptr;
  FeatureMapsTab* features_ = nullptr;
  PredictionsTab* predictions_ = nullptr;
  ExportTab* export_ = nullptr;
  QString pending_val_image_;  // data.yaml of a run opened again whose first val image is still to show
  WorkerThreads workers_;      // the quick start's dataset generation (each tab joins its own workers)
};

}  // namespace ywb::gui
