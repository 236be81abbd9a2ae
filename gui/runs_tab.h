// The Runs tab: every run under a runs folder (runs/detect by default) with its best metrics read from
// results.csv (COCO-exact mAP), and the curves of the selected runs overlaid for comparison (here for one
// column, and in the Training tab's charts through runsSelected), and the pictures of the first selected run
// (its plots: results.png, confusion matrices, curves, batches). Double-clicking a run opens it.
// Thread rules: GUI thread only (results.csv files are small).
#pragma once
#include <QMap>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "run_results.h"

class QComboBox;
class QLineEdit;
class QTabWidget;
class QTableWidget;

namespace ywb::gui {

class MetricChart;
class RunPictures;

class RunsTab : public QWidget {
  Q_OBJECT
 public:
  explicit RunsTab(QWidget* parent = nullptr);
  ~RunsTab() override;
  void setRunsFolder(const QString& folder);
  QString runsFolder() const;
  QTableWidget* table() const { return table_; }
  MetricChart* chart() const { return chart_; }
  RunPictures* pictures() const { return pictures_; }
  QTabWidget* views() const { return views_; }

 public Q_SLOTS:
  void refresh();

 Q_SIGNALS:
  /// The user selected several runs (in table order): their curves are to be overlaid.
  void runsSelected(const QVector<ywb::gui::RunResults>& runs);
  /// The user double-clicked a run: open it (its folder).
  void runActivated(const QString& run_dir);

 private:
  void plotSelected();

  QLineEdit* folder_ = nullptr;
  QTableWidget* table_ = nullptr;
  QComboBox* metric_ = nullptr;
  MetricChart* chart_ = nullptr;
  RunPictures* pictures_ = nullptr;
  QTabWidget* views_ = nullptr;
  QVector<RunResults> runs_;
};

}  // namespace ywb::gui
