#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "hyperparams_tab.h"
#include "log_view.h"
#include "placeholder_tab.h"
#include "system_panel.h"
#include "theme.h"
#include "training_tab.h"
#include "ywb/version.h"

namespace ywb::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("YOLO Workbench %1").arg(ywb::kVersion));
  setObjectName("mainWindow");
  resize(1440, 900);
  buildTabs();
  buildDocks();
  buildMenus();
  restoreLayout();
  statusBar()->showMessage(tr("Ready"));
  log_->appendLine(tr("YOLO Workbench %1 started").arg(ywb::kVersion));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildTabs() {
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("mainTabs");
  tabs_->setDocumentMode(true);
  hyper_ = new HyperparamsTab(tabs_);
  training_ = new TrainingTab(tabs_);
  training_->setArgsProvider([h = hyper_] { return h->args(); });
  struct Spec {
    QString title, text;
  };
  const Spec pending[] = {
      {tr("Dataset"), tr("Open a data.yaml, see the scan report (counts and each problem with its reason), the class "
                         "histogram, box sizes and an image browser with ground-truth boxes.")},
      {tr("Augmentation"), tr("A live grid of augmented training samples (Mosaic, affine, HSV, flips, MixUp) that "
                              "re-renders whenever a parameter changes.")},
      {tr("Feature maps"), tr("Channel activations of a chosen layer for a chosen image, from the EMA weights.")},
      {tr("Predictions"), tr("Validation images with predicted and ground-truth boxes, per-class AP, confusion "
                             "matrix and PR curves (COCO-exact metrics).")},
      {tr("Export"), tr("Export trained weights to safetensors and ONNX, verified by a second runtime.")},
      {tr("Runs"), tr("Runs in the runs folder with their best metrics; overlay curves to compare.")},
  };
  auto placeholder = [&](int i) { return new PlaceholderTab(pending[i].title, pending[i].text, tabs_); };
  tabs_->addTab(placeholder(0), tr("Dataset"));
  tabs_->addTab(hyper_, tr("Hyperparameters"));
  tabs_->addTab(placeholder(1), tr("Augmentation"));
  tabs_->addTab(training_, tr("Training"));
  tabs_->addTab(placeholder(2), tr("Feature maps"));
  tabs_->addTab(placeholder(3), tr("Predictions"));
  tabs_->addTab(placeholder(4), tr("Export"));
  tabs_->addTab(placeholder(5), tr("Runs"));
  setCentralWidget(tabs_);
}

void MainWindow::buildDocks() {
  auto* sys_dock = new QDockWidget(tr("System"), this);
  sys_dock->setObjectName("systemDock");
  system_ = new SystemPanel(sys_dock);
  sys_dock->setWidget(system_);
  sys_dock->setMinimumWidth(420);
  addDockWidget(Qt::RightDockWidgetArea, sys_dock);

  auto* log_dock = new QDockWidget(tr("Log"), this);
  log_dock->setObjectName("logDock");
  log_ = new LogView(log_dock);
  log_dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
  connect(system_, &SystemPanel::logLine, log_, &LogView::appendLine);
  connect(training_, &TrainingTab::logLine, log_, &LogView::appendLine);
  connect(hyper_, &HyperparamsTab::logLine, log_, &LogView::appendLine);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("Dark theme"), this, [] { applyTheme(Theme::Dark); });
  view->addAction(tr("Light theme"), this, [] { applyTheme(Theme::Light); });
  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  tools->addAction(tr("Environment &doctor"), system_, &SystemPanel::runDoctorAsync);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About"), this, [this] {
    QMessageBox::about(this, tr("About YOLO Workbench"),
                       tr("<b>YOLO Workbench %1</b><br>Native training of YOLO object detectors on LibTorch.")
                           .arg(ywb::kVersion));
  });
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  event->accept();
}

}  // namespace ywb::gui
