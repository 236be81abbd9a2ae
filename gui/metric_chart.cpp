#include "metric_chart.h"

#include <algorithm>

namespace ywb::gui {

QColor MetricChart::color(int i) {
  static const QColor colors[] = {
      QColor(0x4f, 0xc3, 0xf7), QColor(0xf5, 0xa6, 0x23), QColor(0x8b, 0xc3, 0x4a), QColor(0xe5, 0x73, 0x73),
      QColor(0xba, 0x68, 0xc8), QColor(0xff, 0xd5, 0x4f), QColor(0x4d, 0xb6, 0xac), QColor(0xa1, 0x88, 0x7f)};
  return colors[((i % 8) + 8) % 8];
}

void MetricChart::styleDark(QCustomPlot* plot) {
  const QColor fg(0xd0, 0xd0, 0xd0), grid(0x44, 0x48, 0x50);
  plot->setBackground(QColor(0x1a, 0x1d, 0x23));
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setBasePen(QPen(fg));
    axis->setTickPen(QPen(fg));
    axis->setSubTickPen(QPen(fg));
    axis->setTickLabelColor(fg);
    axis->setLabelColor(fg);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  plot->legend->setBrush(QColor(0x23, 0x27, 0x2e, 200));
  plot->legend->setTextColor(fg);
  plot->legend->setBorderPen(QPen(grid));
}

MetricChart::MetricChart(const QString& title, const QString& x_label, const QString& y_label,
                         QWidget* parent)
    : QCustomPlot(parent) {
  // Four across beside the System dock on a 1366-pixel screen (the Training tab's grid): at most ~220 wide.
  setMinimumSize(200, 170);
  setNoAntialiasingOnDrag(true);
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, title, QFont(font().family(), 9, QFont::Bold));
  title_->setTextColor(QColor(0xe6, 0xe6, 0xe6));
  plotLayout()->addElement(0, 0, title_);
  xAxis->setLabel(x_label);
  yAxis->setLabel(y_label);
  // The legend in a row of its own under the axis rect, entries side by side: it never hides a curve.
  legend->setFont(QFont(font().family(), 7));
  legend->setRowSpacing(0);
  legend->setColumnSpacing(8);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(3);  // refitted to the chart's width by fitLegend()
  legend->setMargins(QMargins(4, 1, 4, 1));
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(2, 0, legend);
  plotLayout()->setRowStretchFactor(2, 0.001);
  setLegendShown(true);
  note_ = new QCPItemText(this);
  note_->position->setType(QCPItemPosition::ptAxisRectRatio);
  note_->position->setCoords(0.99, 0.02);
  note_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  note_->setFont(QFont(font().family(), 7));
  note_->setColor(QColor(0xb0, 0xbe, 0xc5));
  note_->setBrush(QColor(0x1a, 0x1d, 0x23, 150));  // the curves under it stay visible, dimmed
  note_->setPadding(QMargins(3, 1, 3, 1));         // room for glyphs wider than their metrics (→)
  note_->setVisible(false);
  note_->setLayer("legend");  // above the curves (on "main" the graphs, added later, drew over it)
  // Marker labels are placed for the laid-out plot, before it is drawn (so a resize never cuts one).
  connect(this, &QCustomPlot::afterLayout, this, &MetricChart::placeMarkerLabels);
  styleDark(this);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

int MetricChart::addSeries(const QString& name, const QColor& c, Qt::PenStyle style, bool dots) {
  QCPGraph* g = addGraph();
  g->setName(name);
  g->setPen(QPen(c, 1.6, style));
  if (dots) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
  fitLegend();
  return graphCount() - 1;
}

void MetricChart::setSeriesInLegend(int series, bool shown) {
  QCPGraph* g = graph(series);
  if (!g || legend->hasItemWithPlottable(g) == shown) return;
  if (shown) {
    // keep the series order: re-list every series that should be shown
    QList<QCPGraph*> listed;
    for (int i = 0; i < graphCount(); ++i)
      if (i == series || legend->hasItemWithPlottable(graph(i))) listed << graph(i);
    legend->clearItems();
    for (QCPGraph* l : listed) l->addToLegend();
  } else {
    g->removeFromLegend();
  }
  fitLegend();
  dirty_ = true;
}

void MetricChart::fitLegend() {
  // The entries' own size hints (icon, padding, text in the legend's font), as the layout measures them.
  // (itemCount() counts the grid's cells, empty ones in the last row included.)
  int n = 0, widest = 1;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = legend->item(i)) {
      ++n;
      widest = std::max(widest, item->minimumOuterSizeHint().width());
    }
  if (n == 0) return;
  const int room = width() - legend->margins().left() - legend->margins().right();
  const int columns = std::clamp((room + legend->columnSpacing()) / (widest + legend->columnSpacing()), 1, n);
  if (columns == legend->wrap()) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, /*rearrange=*/true);
}

void MetricChart::resizeEvent(QResizeEvent* event) {
  fitLegend();
  QCustomPlot::resizeEvent(event);
}

void MetricChart::append(int series, double x, double y) {
  graph(series)->addData(x, y);  // appending at the end (x never decreases) is O(1) in QCPDataContainer
  dirty_ = true;
}

QList<QPair<double, QString>> MetricChart::markers() const {
  QList<QPair<double, QString>> out;
  for (int i = 0; i < markers_.size(); ++i)
    out << qMakePair(markers_[i]->point1->coords().x(), marker_texts_[i]);
  return out;
}

void MetricChart::addMarker(double x, const QString& label) {
  auto* line = new QCPItemStraightLine(this);
  line->point1->setCoords(x, 0);
  line->point2->setCoords(x, 1);
  line->setPen(QPen(QColor(0xff, 0xd5, 0x4f), 1, Qt::DashLine));
  auto* text = new QCPItemText(this);  // placed in pixels by placeMarkerLabels() at every layout
  text->setText(label);
  text->setColor(QColor(0xff, 0xd5, 0x4f));
  text->setFont(QFont(font().family(), 7));
  text->setPadding(QMargins(2, 0, 2, 0));
  text->setBrush(QColor(0x1a, 0x1d, 0x23, 200));  // readable over the curves it sits on,
  text->setLayer("axes");                         // drawn above them (graphs are on "main")
  markers_ << line;
  marker_labels_ << text;
  marker_texts_ << label;
  dirty_ = true;
}

void MetricChart::setLegendShown(bool shown) {
  legend->setVisible(shown);
  // An invisible element keeps its row's minimum height; the row is emptied instead.
  if (!shown && plotLayout()->hasElement(2, 0)) {
    plotLayout()->take(legend);
    plotLayout()->simplify();
  } else if (shown && !plotLayout()->hasElement(2, 0)) {
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
  }
}

void MetricChart::setNote(const QString& text) {
  if (note_text_ == text && note_->visible() == !text.isEmpty()) return;
  note_text_ = text;
  note_->setText(text);
  note_->setVisible(!text.isEmpty());
  dirty_ = true;
}

QString MetricChart::note() const {
  return note_->visible() ? note_text_ : QString();
}

QRectF MetricChart::noteRect() const {
  if (!note_->visible()) return {};
  return QRectF(note_->topLeft->pixelPosition(), note_->bottomRight->pixelPosition()).normalized();
}

QRectF MetricChart::markerLabelRect(int i) const {
  QCPItemText* t = marker_labels_.value(i);
  if (!t || !t->visible()) return {};
  return QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized();
}

void MetricChart::placeMarkerLabels() {
  // Each label goes at the top of the plot beside its line: to the right of it, or to the left where the
  // right edge is too near, and pushed in from an edge where neither side has room (a narrow chart), so no
  // label is cut. Labels that would cover one another (markers a few pixels apart, or at one epoch) or the
  // note go a row lower. A label too wide for the plot is elided (markers() keeps its full text), and so is
  // the note; a marker scrolled out of view hides its label.
  const QRect plot = axisRect()->rect();
  QList<QRectF> taken;
  if (note_->visible()) {  // the note, right-aligned at the top, is elided to the plot's width too
    note_->setText(
        QFontMetrics(note_->font()).elidedText(note_text_, Qt::ElideRight, std::max(plot.width() - 8, 8)));
    taken << QRectF(note_->topLeft->pixelPosition(), note_->bottomRight->pixelPosition());
  }
  QList<int> order;
  for (int i = 0; i < marker_labels_.size(); ++i) order << i;
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    return markers_[a]->point1->coords().x() < markers_[b]->point1->coords().x();
  });
  for (int i : order) {
    QCPItemText* t = marker_labels_[i];
    const double x = xAxis->coordToPixel(markers_[i]->point1->coords().x());
    if (x < plot.left() - 1 || x > plot.left() + plot.width() + 1) {  // (the range's ends map to the edges)
      t->setVisible(false);
      continue;
    }
    t->setVisible(true);
    const QFontMetrics fm(t->font());
    const QMargins pad = t->padding();
    const int room = plot.width() - pad.left() - pad.right() - 2;
    t->setText(fm.elidedText(marker_texts_[i], Qt::ElideRight, std::max(room, 8)));
    const QRect text = fm.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignLeft, t->text());
    const double w = text.width() + pad.left() + pad.right(), h = text.height() + pad.top() + pad.bottom();
    double left = x + 2;
    if (left + w > plot.right() - 1) left = x - 2 - w;
    left = std::clamp(left, double(plot.left() + 1), std::max(double(plot.left() + 1), plot.right() - 1 - w));
    double top = plot.top() + 2;
    auto covers = [&taken](const QRectF& r) {
      for (const QRectF& o : taken)
        if (o.intersects(r)) return true;
      return false;
    };
    while (covers(QRectF(left, top, w, h)) && top + 2 * h + 1 < plot.bottom()) top += h + 1;
    taken << QRectF(left, top, w, h);
    t->position->setType(QCPItemPosition::ptAbsolute);
    t->position->setCoords(left, top);
    t->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  }
}

void MetricChart::refresh() {
  if (!dirty_) return;
  dirty_ = false;
  rescaleAxes(true);
  // y from the data itself: losses, rates and loads start at zero, and a flat series still gets a usable
  // range
  double lo = 0, hi = 0;
  bool any = false;
  for (int i = 0; i < graphCount(); ++i) {
    bool found = false;
    const QCPRange r = graph(i)->getValueRange(found);
    if (!found) continue;
    lo = any ? std::min(lo, r.lower) : r.lower;
    hi = any ? std::max(hi, r.upper) : r.upper;
    any = true;
  }
  if (lo >= 0) lo = 0;
  if (hi - lo < 1e-9) hi = lo + 1;
  yAxis->setRange(lo, hi + 0.05 * (hi - lo));
  for (QCPItemStraightLine* m : markers_) {
    // a marker at the last point (the best epoch is often the last) would lie on the plot's edge, half cut
    if (m->point1->coords().x() >= xAxis->range().upper) xAxis->setRangeUpper(m->point1->coords().x() * 1.02);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::clearData() {
  for (int i = 0; i < graphCount(); ++i) graph(i)->data()->clear();
  for (auto* m : markers_) removeItem(m);
  for (auto* t : marker_labels_) removeItem(t);
  markers_.clear();
  marker_labels_.clear();
  marker_texts_.clear();
  setNote(QString());
  dirty_ = true;
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::removeSeriesFrom(int first) {
  while (graphCount() > first) removeGraph(graphCount() - 1);
  fitLegend();
  dirty_ = true;
  replot(QCustomPlot::rpQueuedReplot);
}

int MetricChart::points(int series) const {
  return graph(series)->dataCount();
}

}  // namespace ywb::gui
