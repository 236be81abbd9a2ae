#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>

#include "augmentation_tab.h"
#include "dataset_tab.h"
#include "export_tab.h"
#include "feature_maps_tab.h"
#include "hyperparams_tab.h"
#include "log_view.h"
#include "opened_path.h"
#include "predictions_tab.h"
#include "runs_tab.h"
#include "system_panel.h"
#include "theme.h"
#include "train_args_model.h"
#include "training_controller.h"
#include "training_tab.h"
#include "weights_download_dialog.h"
#include "ywb/quick_start.h"
#include "ywb/run_files.h"
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

MainWindow::~MainWindow() {
  workers_.cancelAndWait();  // before the tabs go: the quick start opens its dataset in them
}

void MainWindow::buildTabs() {
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("mainTabs");
  tabs_->setDocumentMode(true);
  dataset_ = new DatasetTab(tabs_);
  auto* train_args = new TrainArgsModel(this);  // the one set of training arguments, viewed by both tabs
  hyper_ = new HyperparamsTab(train_args, tabs_);
  augment_ = new AugmentationTab(train_args, tabs_);
  training_ = new TrainingTab(tabs_);
  runs_ = new RunsTab(tabs_);
  features_ = new FeatureMapsTab(tabs_);
  predictions_ = new PredictionsTab(tabs_);
  export_ = new ExportTab(tabs_);
  training_->setArgsProvider([h = hyper_] { return h->args(); });
  tabs_->addTab(dataset_, tr("Dataset"));
  tabs_->addTab(hyper_, tr("Hyperparameters"));
  tabs_->addTab(augment_, tr("Augmentation"));
  tabs_->addTab(training_, tr("Training"));
  tabs_->addTab(features_, tr("Feature maps"));
  tabs_->addTab(predictions_, tr("Predictions"));
  tabs_->addTab(export_, tr("Export"));
  tabs_->addTab(runs_, tr("Runs"));
  setCentralWidget(tabs_);

  // The Hyperparameters and Augmentation tabs view one TrainArgsModel; the other tabs follow it.
  connect(dataset_, &DatasetTab::datasetOpened, hyper_,
          [this](const QString& yaml) { hyper_->setValue("data", yaml); });
  connect(hyper_, &HyperparamsTab::argsChanged, this, [this] {
    const ywb::TrainArgs a = hyper_->args();
    predictions_->setDataset(QString::fromStdString(a.data));
    predictions_->setEnd2End(a.end2end);  // the validation path, as the run validates
    features_->setModelYaml(QString::fromStdString(a.model));
  });
  connect(dataset_, &DatasetTab::imageSelected, features_, &FeatureMapsTab::setImage);
  // A run opened again: once its dataset is listed, Feature maps gets the first validation image.
  connect(dataset_, &DatasetTab::datasetScanned, this, [this] {
    if (pending_val_image_.isEmpty() || dataset_->dataYaml() != pending_val_image_) return;
    pending_val_image_.clear();
    dataset_->showSplit("val");
  });
  connect(runs_, &RunsTab::runActivated, this, [this](const QString& dir) { openPath(dir); });
  connect(runs_, &RunsTab::runsSelected, training_, &TrainingTab::showRuns);
  // "Follow training" in Feature maps: EMA copies from the run training in this window.
  TrainingController* ctl = training_->controller();
  features_->setSnapshotSource([ctl] { return ctl->requestEmaSnapshot(); },
                               [ctl] { return ctl->emaSnapshot(); });
  connect(training_, &TrainingTab::runFinished, this, [this](const QString& dir) {
    runs_->setRunsFolder(QFileInfo(dir).absolutePath());
    showRunWeights(dir);
  });
}

void MainWindow::showRunWeights(const QString& dir) {
  // Ours write .safetensors, Ultralytics' runs .pt (the loader reads both).
  auto find = [&dir](const char* stem) {
    for (const char* ext : {".safetensors", ".pt"}) {
      const QString p = dir + "/" + ywb::run_files::kWeights + "/" + stem + ext;
      if (QFileInfo::exists(p)) return p;
    }
    return QString();
  };
  const QString best = find("best"), last = find("last");
  if (last.isEmpty() && best.isEmpty()) return;
  const QString weights = !best.isEmpty() ? best : last;
  predictions_->setWeights(weights);
  export_->setWeights(weights);
  features_->setWeights(!last.isEmpty() ? last : best);  // the checkpoint's EMA weights
}

QString MainWindow::openRun(const QString& dir) {
  // The run as it was: its folder selected in Runs, its weights in Predictions, Feature maps and Export, its
  // charts, phase and Resume in Training, its dataset in Dataset and Predictions, and the first validation
  // image in Feature maps (once the dataset's scan lists it).
  const QString name = QFileInfo(dir).fileName();
  runs_->setRunsFolder(QFileInfo(dir).absolutePath());
  for (int row = 0; row < runs_->table()->rowCount(); ++row) {
    const QTableWidgetItem* item = runs_->table()->item(row, 0);
    if (item && item->text() == name) runs_->table()->selectRow(row);
  }
  showRunWeights(dir);
  RunResults run;
  run.load(dir);
  const QString yaml = run.dataYaml();
  if (run.has_args) showRunArgs(run, yaml);
  training_->showRuns({run});
  if (!yaml.isEmpty()) {
    pending_val_image_ = QFileInfo(yaml).absoluteFilePath();
    dataset_->openDataset(yaml);
    predictions_->setDataset(yaml);
  }
  predictions_->setSplit(run.split);
  const QStringList problems = run.problems();
  for (const QString& p : problems) log_->appendLine(tr("Run %1: could not read: %2").arg(dir, p));
  return problems.join("; ");
}

void MainWindow::showRunArgs(const RunResults& run, const QString& data_yaml) {
  // The run's own arguments in Hyperparameters (so Start trains it again with its settings): its args.yaml as
  // the engine reads it, with the dataset where it was found, and the keys this trainer does not use named.
  ywb::TrainArgs a = run.args;
  a.given.clear();
  a.resume.clear();
  if (!data_yaml.isEmpty()) a.data = data_yaml.toStdString();
  // Ultralytics writes exist_ok: true when it was asked to; Start would then write over the run just opened
  // (the same project/name from this folder): a new run beside it instead.
  const QString target = QString::fromStdString(a.project) + "/" + QString::fromStdString(a.name);
  QString note;
  if (a.exist_ok && QFileInfo(target).absoluteFilePath() == QFileInfo(run.dir).absoluteFilePath()) {
    a.exist_ok = false;
    note = tr("; exist_ok set to false so that Start writes a new run beside it, not over it");
  }
  hyper_->setArgs(a);
  const QString line =
      run.unknown_args.isEmpty()
          ? tr("Hyperparameters: the arguments of %1 (its args.yaml)%2").arg(run.dir, note)
          : tr("Hyperparameters: the arguments of %1 (its args.yaml)%2; keys this trainer does not use: %3")
                .arg(run.dir, note, run.unknown_args.join(", "));
  hyper_->showStatus(line);
  log_->appendLine(line);
}

void MainWindow::openFileDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open"), lastOpenedFolder(), openableFileFilter());
  if (!path.isEmpty()) openPath(path);
}

void MainWindow::openFolderDialog() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("Open folder"), lastOpenedFolder());
  if (!path.isEmpty()) openPath(path);
}

QString MainWindow::lastOpenedFolder() const {
  return QSettings().value("open/lastFolder").toString();
}

bool MainWindow::openPath(const QString& path) {
  const OpenedPath o = classifyPath(path);
  QString done;
  switch (o.kind) {
    case OpenedPath::Dataset:
      dataset_->openDataset(o.path);
      tabs_->setCurrentWidget(dataset_);
      done = tr("Opening dataset %1").arg(o.path);
      break;
    case OpenedPath::Run: {
      const QString problems = openRun(o.path);
      tabs_->setCurrentWidget(training_);
      done = problems.isEmpty() ? tr("Opened run %1").arg(o.path)
                                : tr("Opened run %1; could not read: %2").arg(o.path, problems);
      break;
    }
    case OpenedPath::Weights:
      predictions_->setWeights(o.path);
      export_->setWeights(o.path);
      features_->setWeights(o.path);
      tabs_->setCurrentWidget(predictions_);
      done = tr("Opened weights %1 (Predictions, Feature maps, Export)").arg(o.path);
      break;
    case OpenedPath::Hyperparameters: {
      QString error;
      if (!hyper_->loadYaml(o.path, &error)) {
        done = tr("Could not open %1: %2").arg(o.path, error);
        log_->appendLine(done);
        statusBar()->showMessage(done);
        return false;
      }
      tabs_->setCurrentWidget(hyper_);
      done = tr("Opened training arguments %1").arg(o.path);
      break;
    }
    case OpenedPath::Unknown:
      log_->appendLine(tr("Could not open: %1").arg(o.message));
      statusBar()->showMessage(tr("Could not open: %1").arg(o.message));
      return false;
  }
  log_->appendLine(done);
  statusBar()->showMessage(done);
  // The next File > Open starts where this one was (a folder's parent, so its siblings show).
  QSettings().setValue("open/lastFolder", QFileInfo(o.path).absolutePath());
  return true;
}

void MainWindow::startQuickStart(const QString& dataset_folder) {
  const ywb::QuickStart q =
      dataset_folder.isEmpty() ? ywb::quickStart() : ywb::quickStart(dataset_folder.toStdString());
  hyper_->setArgs(q.train);
  const QString yaml = QFileInfo(QString::fromStdString(q.train.data)).absoluteFilePath();
  if (QFileInfo::exists(yaml)) return openQuickStartDataset(yaml);
  const QString msg = tr("Quick start: generating the shapes dataset in %1 ...")
                          .arg(QFileInfo(QString::fromStdString(q.dataset.out)).absoluteFilePath());
  log_->appendLine(msg);
  statusBar()->showMessage(msg);
  QPointer<MainWindow> self(this);
  workers_.start("ywb-quick-start", [self, q, yaml] {
    QString error;
    try {
      ywb::synthesizeDataset(q.dataset);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, yaml, error] {
          if (!self) return;
          if (error.isEmpty()) return self->openQuickStartDataset(yaml);
          const QString line = tr("Quick start: could not generate the dataset: %1").arg(error);
          self->log_->appendLine(line);
          self->statusBar()->showMessage(line);
        },
        Qt::QueuedConnection);
  });
}

void MainWindow::openQuickStartDataset(const QString& yaml) {
  dataset_->openDataset(yaml);
  tabs_->setCurrentWidget(training_);
  const ywb::TrainArgs a = hyper_->args();
  const ywb::QuickStart q = ywb::quickStart();
  const QString line = tr("Quick start: %1 for %2 epochs at imgsz %3 on %4 is set up; press Start in the "
                          "Training tab (about %5-%6 minutes on 2 CPU cores)")
                           .arg(QString::fromStdString(a.model))
                           .arg(a.epochs)
                           .arg(a.imgsz)
                           .arg(yaml)
                           .arg(q.cpu_minutes_avx512)
                           .arg(q.cpu_minutes_avx2);
  log_->appendLine(line);
  statusBar()->showMessage(line);
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
  // GPU series say which rank uses them while a multi-rank run is on.
  TrainingController* ctl = training_->controller();
  connect(ctl, &TrainingController::started, system_, [this, ctl] {
    system_->setRunDevices(QString::fromStdString(ctl->args().device), ctl->args().world);
  });
  connect(ctl, &TrainingController::stoppedRunning, system_,
          [this] { system_->setRunDevices(QString(), 1); });
  connect(training_, &TrainingTab::logLine, log_, &LogView::appendLine);
  connect(hyper_, &HyperparamsTab::logLine, log_, &LogView::appendLine);
  connect(dataset_, &DatasetTab::logLine, log_, &LogView::appendLine);
  connect(augment_, &AugmentationTab::logLine, log_, &LogView::appendLine);
  connect(features_, &FeatureMapsTab::logLine, log_, &LogView::appendLine);
  connect(predictions_, &PredictionsTab::logLine, log_, &LogView::appendLine);
  connect(export_, &ExportTab::logLine, log_, &LogView::appendLine);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openFileDialog);
  open->setObjectName("actionOpen");
  open->setStatusTip(tr("Open a data.yaml, weights (.pt, .safetensors) or a YAML of training arguments"));
  QAction* folder = file->addAction(tr("Open &folder..."), this, &MainWindow::openFolderDialog);
  folder->setObjectName("actionOpenFolder");
  folder->setStatusTip(tr("Open a dataset folder (with its data.yaml) or a run folder"));
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("Dark theme"), this, [] { applyTheme(Theme::Dark); });
  view->addAction(tr("Light theme"), this, [] { applyTheme(Theme::Light); });
  QMenu* language = view->addMenu(tr("Language"));
  for (const auto& [code, name] :
       {std::pair<QString, QString>{"en", tr("English")}, {"zh_CN", tr("Chinese (Simplified)")}}) {
    language->addAction(name, this, [this, c = code] {
      QSettings().setValue("ui/language", c);
      QMessageBox::information(this, tr("Language"),
                               tr("The language changes when the program starts again."));
    });
  }
  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  tools->addAction(tr("Environment &doctor"), system_, &SystemPanel::runDoctorAsync);
  tools->addAction(tr("&Weights download address..."), this,
                   [this] { WeightsDownloadDialog::editBaseUrlSetting(this); });
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
  // Every named splitter of the tabs (datasetSplitter, trainingSplitter, ...) keeps its handle positions.
  for (QSplitter* s : findChildren<QSplitter*>()) {
    if (s->objectName().isEmpty()) continue;
    const QByteArray state = settings.value("splitters/" + s->objectName()).toByteArray();
    if (!state.isEmpty()) s->restoreState(state);
  }
}

void MainWindow::saveLayout() {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  for (QSplitter* s : findChildren<QSplitter*>())
    if (!s->objectName().isEmpty()) settings.setValue("splitters/" + s->objectName(), s->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  event->accept();
}

}  // namespace ywb::gui
