// The Dataset tab: open a data.yaml (recent ones remembered) or create one from a folder, the scan report
// with every problem (double-click opens the image), the class histogram, a box width/height scatter and an
// image browser (per split: file name, status, box count) with ground-truth boxes. Everything comes from the
// engine's listing (ywb::listDataset: its own scan, path rule and label parser). Thread rules: GUI thread;
// the scan runs on a worker thread and reports back queued; closing the tab waits for it.
#pragma once
#include <QStringList>
#include <QWidget>
#include <memory>

#include "worker_threads.h"
#include "ywb/dataset_listing.h"

class QComboBox;
class QLabel;
class QTreeWidget;

namespace ywb::gui {

class BoxImageView;
class ClassHistogram;
class MetricChart;

class DatasetTab : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetTab(QWidget* parent = nullptr);
  ~DatasetTab() override;
  /// Opens and scans a data.yaml (asynchronously; datasetScanned follows).
  void openDataset(const QString& yaml);
  /// Writes a data.yaml for a folder of images and labels (off the GUI thread; see ywb::initDatasetYaml),
  /// then opens it. datasetCreated follows, then datasetScanned when it worked.
  void createFromFolder(const QString& folder, bool overwrite = false, const QStringList& names = {});
  QString dataYaml() const { return yaml_; }
  /// Shows one image of the dataset with its ground-truth boxes.
  void showImage(const QString& path);
  QTreeWidget* report() const { return report_; }
  /// The images of the selected split: columns file (relative to the split), status, boxes.
  QTreeWidget* images() const { return images_; }
  ClassHistogram* histogram() const { return histogram_; }
  /// Shows the images of split "train", "val" or "test" in the image list (false when not in the dataset).
  bool showSplit(const QString& split);
  BoxImageView* viewer() const { return viewer_; }

 Q_SIGNALS:
  void datasetOpened(const QString& yaml);
  /// After createFromFolder: ok with the data.yaml path, or not ok with the engine's message.
  void datasetCreated(bool ok, const QString& yaml_or_error);
  void datasetScanned(bool ok);
  /// The image selected in the image list (its path).
  void imageSelected(const QString& path);
  void logLine(const QString& line);

 private:
  struct Scan;
  void chooseDataset();
  void chooseFolder();
  void showScan(const Scan& scan);
  void rememberRecent(const QString& yaml);
  void fillImages(const ywb::SplitListing& split);

  QString yaml_;
  QStringList names_;
  QComboBox* recent_ = nullptr;
  QLabel* summary_ = nullptr;
  QTreeWidget* report_ = nullptr;
  ClassHistogram* histogram_ = nullptr;
  MetricChart* scatter_ = nullptr;
  QComboBox* split_ = nullptr;
  QTreeWidget* images_ = nullptr;
  std::shared_ptr<const ywb::DatasetListing> listing_;
  BoxImageView* viewer_ = nullptr;
  int generation_ = 0;     // ignores results of a scan superseded by a newer one
  WorkerThreads workers_;  // scans and data.yaml creation under way
};

}  // namespace ywb::gui
