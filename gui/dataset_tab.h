// The Dataset tab: open a data.yaml (recent ones remembered) or create one from a folder, the scan report
// with every problem (double-click opens the image), the class histogram, a box width/height scatter and an
// image browser with ground-truth boxes. Thread rules: GUI thread; the scan and the label statistics run on a
// worker thread and report back queued.
#pragma once
#include <QStringList>
#include <QWidget>

#include "ywb/dataset.h"

class QComboBox;
class QLabel;
class QListWidget;
class QTreeWidget;

namespace ywb::gui {

class BoxImageView;
class MetricChart;

class DatasetTab : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetTab(QWidget* parent = nullptr);
  /// Opens and scans a data.yaml (asynchronously; datasetScanned follows).
  void openDataset(const QString& yaml);
  /// Writes a data.yaml for a folder of images and labels (off the GUI thread; see ywb::initDatasetYaml),
  /// then opens it. datasetCreated follows, then datasetScanned when it worked.
  void createFromFolder(const QString& folder, bool overwrite = false, const QStringList& names = {});
  QString dataYaml() const { return yaml_; }
  /// Shows one image of the dataset with its ground-truth boxes.
  void showImage(const QString& path);
  QTreeWidget* report() const { return report_; }
  QListWidget* images() const { return images_; }
  BoxImageView* viewer() const { return viewer_; }

 Q_SIGNALS:
  void datasetOpened(const QString& yaml);
  /// After createFromFolder: ok with the data.yaml path, or not ok with the engine's message.
  void datasetCreated(bool ok, const QString& yaml_or_error);
  void datasetScanned(bool ok);
  void logLine(const QString& line);

 private:
  struct Scan;
  void chooseDataset();
  void chooseFolder();
  void showScan(const Scan& scan);
  void rememberRecent(const QString& yaml);

  QString yaml_;
  QStringList names_;
  QComboBox* recent_ = nullptr;
  QLabel* summary_ = nullptr;
  QTreeWidget* report_ = nullptr;
  MetricChart* histogram_ = nullptr;
  MetricChart* scatter_ = nullptr;
  QListWidget* images_ = nullptr;
  BoxImageView* viewer_ = nullptr;
  int generation_ = 0;  // ignores results of a scan superseded by a newer one
};

}  // namespace ywb::gui
