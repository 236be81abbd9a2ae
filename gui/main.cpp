// yolo-workbench: the desktop GUI over the YOLO Workbench engine.
#include <QApplication>
#include <QIcon>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include "main_window.h"
#include "theme.h"
#include "ywb/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("yolo-workbench");
  QApplication::setOrganizationName("yolo-workbench");
  QApplication::setApplicationVersion(ywb::kVersion);
  QApplication::setWindowIcon(QIcon(":/icons/yolo-workbench.svg"));
  // Language: the saved choice, else the system's; English is built in.
  const QString lang = QSettings().value("ui/language", QLocale::system().name()).toString();
  QTranslator translator;
  if (lang.startsWith("zh") && translator.load(":/i18n/yolo-workbench_zh_CN.qm"))
    QApplication::installTranslator(&translator);
  ywb::gui::applyTheme(ywb::gui::Theme::Dark);
  ywb::gui::MainWindow window;
  window.show();
  return app.exec();
}
