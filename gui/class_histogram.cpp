#include "class_histogram.h"

#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <numeric>

namespace ywb::gui {
namespace {
constexpr int kNameWidthPx = 120;  // tick labels are elided to this width; the full name is on hover
}

ClassHistogram::ClassHistogram(const QString& title, QWidget* parent)
    : MetricChart(title, tr("boxes"), QString(), parent) {
  setLegendShown(false);
  setInteractions({});                // rows are laid out for the visible height: no drag or zoom
  bars_ = new QCPBars(yAxis, xAxis);  // horizontal: classes on the vertical (key) axis
  bars_->setBrush(QColor(0x4f, 0xc3, 0xf7, 180));
  bars_->setPen(Qt::NoPen);
  bars_->setWidth(0.7);
  yAxis->setRangeReversed(true);  // the largest class on top
  yAxis->setSubTicks(false);
  yAxis->grid()->setVisible(false);
  // A new size is known once the layout ran: lay the rows out again (queued, outside the replot) when a
  // different number of them fits.
  connect(this, &QCustomPlot::afterLayout, this, [this] {
    if (!counts_.isEmpty() && rowsThatFit() != laid_out_rows_)
      QMetaObject::invokeMethod(
          this, [this] { relayout(); }, Qt::QueuedConnection);
  });
  setMouseTracking(true);
  connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    const QString tip = toolTipAt(e->pos());
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(e->globalPosition().toPoint(), tip, this);
  });
}

void ClassHistogram::setCounts(const QStringList& names, const QVector<int>& counts) {
  names_ = names;
  counts_ = counts;
  laid_out_rows_ = -1;
  relayout();
}

int ClassHistogram::rowsThatFit() const {
  const QFontMetrics fm(yAxis->tickLabelFont());
  // One text line per row plus 2 px between labels; the axis rect's height is known after a layout.
  const int h = axisRect()->height() > 0 ? axisRect()->height() : height() - 80;
  return std::max(1, h / (fm.height() + 2));
}

void ClassHistogram::relayout() {
  const int fit = rowsThatFit();
  if (fit == laid_out_rows_) return;
  laid_out_rows_ = fit;
  QVector<int> order(counts_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) { return counts_[a] > counts_[b]; });
  const int n = int(order.size());
  const int shown = n <= fit ? n : fit - 1;  // the last row then sums the rest
  const QFontMetrics fm(yAxis->tickLabelFont());
  row_labels_.clear();
  row_tips_.clear();
  row_counts_.clear();
  auto name = [this](int c) { return c < names_.size() ? names_[c] : QString::number(c); };
  for (int i = 0; i < shown; ++i) {
    const int c = order[i];
    row_labels_ << fm.elidedText(name(c), Qt::ElideRight, kNameWidthPx);
    row_tips_ << tr("%1 (class %2): %3 boxes").arg(name(c)).arg(c).arg(counts_[c]);
    row_counts_ << counts_[c];
  }
  if (shown < n) {
    int sum = 0;
    QStringList rest;
    for (int i = shown; i < n; ++i) {
      sum += counts_[order[i]];
      rest << QString("%1 %2").arg(name(order[i])).arg(counts_[order[i]]);
    }
    row_labels_ << tr("others (%1 classes)").arg(n - shown);
    row_tips_ << tr("others, %1 boxes: %2").arg(sum).arg(rest.join(", "));
    row_counts_ << sum;
  }
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  QVector<double> keys, values;
  for (int i = 0; i < row_labels_.size(); ++i) {
    ticker->addTick(i, row_labels_[i]);
    keys << i;
    values << row_counts_[i];
  }
  yAxis->setTicker(ticker);
  bars_->setData(keys, values, true);
  yAxis->setRange(-0.6, std::max(0.4, row_labels_.size() - 0.4));
  const int top = row_counts_.isEmpty() ? 1 : *std::max_element(row_counts_.begin(), row_counts_.end());
  xAxis->setRange(0, top * 1.08 + 1);
  replot(QCustomPlot::rpQueuedReplot);
}

QStringList ClassHistogram::rowLabels() const {
  return row_labels_;
}

QString ClassHistogram::toolTipAt(const QPoint& pos) const {
  if (!axisRect()->rect().contains(pos) &&
      !(pos.x() < axisRect()->left() && pos.y() >= axisRect()->top() && pos.y() <= axisRect()->bottom()))
    return {};
  const int row = qRound(yAxis->pixelToCoord(pos.y()));
  return row >= 0 && row < row_tips_.size() ? row_tips_[row] : QString();
}

}  // namespace ywb::gui
