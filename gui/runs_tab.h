// The Runs tab: every run under a runs folder (runs/detect by default) with its best metrics read from
// results.csv (COCO-exact mAP), and the curves of the selected runs overlaid for comparison.
// Thread rules: GUI thread only (results.csv files are small).
#pragma once
#include <QMap>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QComboBox;
class QLineEdit;
class QTableWidget;

namespace ywb::gui {

class MetricChart;

/// One run's results.csv, read by the engine's reader (ywb/results_csv.h): column name -> values per epoch.
struct RunResults {
  QString dir;
  QStringList columns;
  QMap<QString, QVector<double>> values;
  int best = -1;  ///< row of the epoch whose weights are in weights/best (ywb::bestResultsRow), -1: none
  QString error;  ///< why a results.csv that exists could not be read
  QString model;  ///< the run's `model` argument from its args.yaml ("yolo11n.yaml"), empty when unreadable
  /// Reads dir/results.csv; false when missing or unreadable (then `error` says why).
  bool load(const QString& run_dir);
  int epochs() const { return values.value("epoch").size(); }
};

class RunsTab : public QWidget {
  Q_OBJECT
 public:
  explicit RunsTab(QWidget* parent = nullptr);
  void setRunsFolder(const QString& folder);
  QString runsFolder() const;
  QTableWidget* table() const { return table_; }
  MetricChart* chart() const { return chart_; }

 public Q_SLOTS:
  void refresh();

 private:
  void plotSelected();

  QLineEdit* folder_ = nullptr;
  QTableWidget* table_ = nullptr;
  QComboBox* metric_ = nullptr;
  MetricChart* chart_ = nullptr;
  QVector<RunResults> runs_;
};

}  // namespace ywb::gui
