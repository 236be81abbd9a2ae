// A tab whose engine capability has not landed yet: states what it will show and which engine piece it
// waits for, so the window's structure is final while the views grow. Thread rules: GUI thread only.
#pragma once
#include <QWidget>

namespace ywb::gui {

class PlaceholderTab : public QWidget {
  Q_OBJECT
 public:
  PlaceholderTab(const QString& title, const QString& description, QWidget* parent = nullptr);
};

}  // namespace ywb::gui
