// yolo-workbench: the desktop GUI over the YOLO Workbench engine.
#include <QApplication>
#include <QIcon>

#include "main_window.h"
#include "theme.h"
#include "ywb/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("yolo-workbench");
  QApplication::setOrganizationName("yolo-workbench");
  QApplication::setApplicationVersion(ywb::kVersion);
  QApplication::setWindowIcon(QIcon(":/icons/yolo-workbench.svg"));
  ywb::gui::applyTheme(ywb::gui::Theme::Dark);
  ywb::gui::MainWindow window;
  window.show();
  return app.exec();
}
