#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace ywb::gui {

void applyTheme(Theme theme) {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  if (theme == Theme::Light) {
    QApplication::setPalette(QApplication::style()->standardPalette());
    return;
  }
  QPalette p;
  const QColor window(0x23, 0x27, 0x2e), base(0x1a, 0x1d, 0x23), text(0xe6, 0xe6, 0xe6);
  const QColor accent(0x4f, 0xc3, 0xf7);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, accent);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::black);
  p.setColor(QPalette::PlaceholderText, QColor(0x88, 0x88, 0x88));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x77, 0x77, 0x77));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x77, 0x77, 0x77));
  QApplication::setPalette(p);
}

}  // namespace ywb::gui
