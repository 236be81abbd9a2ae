#include "box_image_view.h"

#include <QPainter>

namespace ywb::gui {

BoxImageView::BoxImageView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 200);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QColor BoxImageView::classColor(int cls) {
  // golden-angle hue steps keep neighbouring classes apart
  return QColor::fromHsv(int(std::fmod(cls * 137.508, 360.0)), 200, 255);
}

void BoxImageView::setImage(const QImage& image, const QVector<ViewBox>& boxes) {
  image_ = image;
  boxes_ = boxes;
  message_.clear();
  update();
}

void BoxImageView::setBoxes(const QVector<ViewBox>& boxes) {
  boxes_ = boxes;
  update();
}

void BoxImageView::setMessage(const QString& text) {
  message_ = text;
  image_ = QImage();
  boxes_.clear();
  update();
}

void BoxImageView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(0x1a, 0x1d, 0x23));
  if (image_.isNull()) {
    p.setPen(QColor(0xaa, 0xaa, 0xaa));
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_);
    return;
  }
  const double s = std::min(double(width()) / image_.width(), double(height()) / image_.height());
  const QSizeF size(image_.width() * s, image_.height() * s);
  const QPointF origin((width() - size.width()) / 2, (height() - size.height()) / 2);
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(QRectF(origin, size), image_);
  p.setRenderHint(QPainter::Antialiasing);
  QFont f = font();
  f.setPointSize(8);
  p.setFont(f);
  const QFontMetrics fm(f);
  for (const ViewBox& b : boxes_) {
    const QRectF r(origin.x() + b.rect.x() * s, origin.y() + b.rect.y() * s, b.rect.width() * s,
                   b.rect.height() * s);
    p.setPen(QPen(b.color, 2, b.dashed ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    if (b.label.isEmpty()) continue;
    const QRectF tr(r.x(), r.y() - fm.height() - 1, fm.horizontalAdvance(b.label) + 6, fm.height() + 1);
    const QRectF place = tr.top() < 0 ? tr.translated(0, fm.height() + 1) : tr;
    p.fillRect(place, b.color);
    p.setPen(Qt::black);
    p.drawText(place.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, b.label);
  }
}

}  // namespace ywb::gui
