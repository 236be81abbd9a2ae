// A QCustomPlot styled for the dark theme with named series, vertical event markers and PNG/PDF export.
// Thread rules: GUI thread only.
#pragma once
#include <qcustomplot.h>

namespace ywb::gui {

class MetricChart : public QCustomPlot {
  Q_OBJECT
 public:
  MetricChart(const QString& title, const QString& x_label, const QString& y_label,
              QWidget* parent = nullptr);
  /// Adds a series and returns its index.
  int addSeries(const QString& name, const QColor& color, Qt::PenStyle style = Qt::SolidLine,
                bool dots = false);
  /// Appends a point (x must not decrease) and marks the chart for a queued replot.
  void append(int series, double x, double y);
  /// A dashed vertical line at x with a label (warmup end, close-mosaic, ...).
  void addMarker(double x, const QString& label);
  /// Rescales the axes to the data and replots (queued). Keeps y >= 0 when all data is.
  void refresh();
  /// Removes every point and marker.
  void clearData();
  /// The markers so far: x and label, in the order added.
  QList<QPair<double, QString>> markers() const;
  /// Points in series i.
  int points(int series) const;
  static QColor color(int i);
  static void styleDark(QCustomPlot* plot);

 private:
  QCPTextElement* title_ = nullptr;
  QList<QCPItemStraightLine*> markers_;
  QList<QCPItemText*> marker_labels_;
  bool dirty_ = false;
};

}  // namespace ywb::gui
