// Shows an image scaled to fit, with labelled boxes drawn over it (ground truth, predictions).
// Thread rules: GUI thread only.
#pragma once
#include <QColor>
#include <QImage>
#include <QRectF>
#include <QVector>
#include <QWidget>

namespace ywb::gui {

struct ViewBox {
  QRectF rect;  ///< image pixels
  QString label;
  QColor color;
  bool dashed = false;
};

class BoxImageView : public QWidget {
  Q_OBJECT
 public:
  explicit BoxImageView(QWidget* parent = nullptr);
  void setImage(const QImage& image, const QVector<ViewBox>& boxes);
  void setBoxes(const QVector<ViewBox>& boxes);
  void setMessage(const QString& text);
  const QImage& image() const { return image_; }
  int boxCount() const { return boxes_.size(); }
  const QVector<ViewBox>& boxes() const { return boxes_; }
  /// A distinct colour per class index.
  static QColor classColor(int cls);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage image_;
  QVector<ViewBox> boxes_;
  QString message_;
};

}  // namespace ywb::gui
