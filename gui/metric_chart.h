// A QCustomPlot styled for the dark theme with named series, vertical event markers and PNG/PDF export.
// The legend sits in its own row under the plot (never over the curves); marker labels stay inside the plot;
// a note (one line of text, top right inside the plot) explains what the series show when that needs words.
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
  /// Removes every point and marker (and the note).
  void clearData();
  /// Removes series `first` and every one after it (overlays added after the chart's own series).
  void removeSeriesFrom(int first);
  /// Sets the note shown at the top right inside the plot ("" hides it).
  void setNote(const QString& text);
  QString note() const;
  /// The note's rectangle in widget pixels (as last laid out); empty when there is none.
  QRectF noteRect() const;
  /// Shows or hides the legend row under the plot (hidden, it takes no space).
  void setLegendShown(bool shown);
  /// Shows series i in the legend or not (a series without data to show need not be listed).
  void setSeriesInLegend(int series, bool shown);
  /// Lays the legend out in as many columns as its widest entry allows in the chart's width (called on
  /// resize and when entries change), so no entry is cut.
  void fitLegend();
  /// The rectangle of marker label i in widget pixels (as last laid out); empty while its marker is out of
  /// view.
  QRectF markerLabelRect(int i) const;
  /// The markers so far: x and label, in the order added.
  QList<QPair<double, QString>> markers() const;
  /// Points in series i.
  int points(int series) const;
  static QColor color(int i);
  static void styleDark(QCustomPlot* plot);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void placeMarkerLabels();

  QCPTextElement* title_ = nullptr;
  QCPItemText* note_ = nullptr;
  QString note_text_;  // the note's full text (it may show elided)
  QList<QCPItemStraightLine*> markers_;
  QList<QCPItemText*> marker_labels_;
  QStringList marker_texts_;  // the labels' full text (a label may show elided)
  bool dirty_ = false;
};

}  // namespace ywb::gui
