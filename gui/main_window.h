// The main window: assembles the tabs and docks; holds no view logic of its own.
// Thread rules: GUI thread only.
#pragma once
#include <QMainWindow>

class QTabWidget;

namespace ywb::gui {

class LogView;
class SystemPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
  QTabWidget* tabs() const { return tabs_; }
  SystemPanel* systemPanel() const { return system_; }
  LogView* log() const { return log_; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildTabs();
  void buildDocks();
  void buildMenus();
  void restoreLayout();

  QTabWidget* tabs_ = nullptr;
  SystemPanel* system_ = nullptr;
  LogView* log_ = nullptr;
};

}  // namespace ywb::gui
