// Boxes per class as horizontal bars sorted by count, with names that stay readable: as many rows as fit
// the height at the tick-label font (one text line each), the rest summed into "others"; names elided to a
// fixed width; the full name and count on hover. Thread rules: GUI thread only.
#pragma once
#include <QStringList>
#include <QVector>

#include "metric_chart.h"

namespace ywb::gui {

class ClassHistogram : public MetricChart {
  Q_OBJECT
 public:
  ClassHistogram(const QString& title, QWidget* parent = nullptr);
  /// Box counts per class id (names[i] for class i; a missing name shows the id).
  void setCounts(const QStringList& names, const QVector<int>& counts);
  /// The rows shown, top first: a class name (elided) or "others (N classes)".
  QStringList rowLabels() const;
  /// The box count of each row shown (others: the sum), top first.
  QVector<int> rowCounts() const { return row_counts_; }
  /// The hover text of the row under widget position `pos` ("" when none).
  QString toolTipAt(const QPoint& pos) const;

 private:
  void relayout();
  int rowsThatFit() const;

  QStringList names_;
  QVector<int> counts_;
  QCPBars* bars_ = nullptr;
  QStringList row_labels_, row_tips_;
  QVector<int> row_counts_;
  int laid_out_rows_ = -1;  // rowsThatFit() of the last layout
};

}  // namespace ywb::gui
