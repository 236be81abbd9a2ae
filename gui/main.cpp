// yolo-workbench: the desktop GUI over the YOLO Workbench engine.
//   yolo-workbench [PATH]          PATH: a data.yaml, a run folder, a weights file or a YAML of arguments
//   yolo-workbench --quickstart    the quick start (shapes dataset, quick settings, Training tab)
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLocale>
#include <QSettings>
#include <QTimer>
#include <QTranslator>
#include <cstring>
#include <memory>

#include "main_window.h"
#include "theme.h"
#include "ywb/crash_report.h"
#include "ywb/version.h"

namespace {

void describe(QCommandLineParser& p) {
  p.setApplicationDescription(
      "YOLO Workbench: train, inspect and export YOLO object detectors.\n"
      "PATH may be a dataset's data.yaml (Dataset tab), a run folder (Runs tab and its weights), a weights\n"
      "file (Predictions, Feature maps, Export) or a YAML of training arguments (Hyperparameters tab).");
  p.addHelpOption();
  p.addVersionOption();
  p.addOption({"quickstart",
               "Generate the shapes dataset if needed, open it and fill in the quick-start "
               "training settings (press Start in the Training tab)."});
  p.addPositionalArgument("PATH", "data.yaml, run folder, weights file or training-arguments YAML to open",
                          "[PATH]");
}

// --help and --version need no display: answer them before a QApplication would try to open one.
bool wantsTextOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* o : {"-h", "--help", "--help-all", "-v", "--version", "-?"})
      if (std::strcmp(argv[i], o) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  ywb::installCrashReport("yolo-workbench");
  if (wantsTextOnly(argc, argv)) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("yolo-workbench");
    QCoreApplication::setApplicationVersion(ywb::kVersion);
    QCommandLineParser parser;
    describe(parser);
    parser.process(app);  // prints and exits
    return 0;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("yolo-workbench");
  QApplication::setOrganizationName("yolo-workbench");
  QApplication::setApplicationVersion(ywb::kVersion);
  QApplication::setWindowIcon(QIcon(":/icons/yolo-workbench.svg"));
  QCommandLineParser parser;
  describe(parser);
  parser.process(app);  // an unknown option prints the usage and exits with 1
  // Language: the saved choice, else the system's; English is built in.
  const QString lang = QSettings().value("ui/language", QLocale::system().name()).toString();
  QTranslator translator;
  if (lang.startsWith("zh") && translator.load(":/i18n/yolo-workbench_zh_CN.qm"))
    QApplication::installTranslator(&translator);
  ywb::gui::applyTheme(ywb::gui::Theme::Dark);
  ywb::gui::MainWindow window;
  window.show();
  const QStringList paths = parser.positionalArguments();
  const bool quick = parser.isSet("quickstart");
  // After the window is up, so that a slow or failing open is visible in the log and the status bar.
  QTimer::singleShot(0, &window, [&window, paths, quick] {
    if (quick) window.startQuickStart();
    for (const QString& p : paths) window.openPath(p);
  });
  return app.exec();
}
