#include "dataset_tab.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "box_image_view.h"
#include "class_histogram.h"
#include "metric_chart.h"
#include "opened_path.h"
#include "ywb/dataset_yaml.h"

namespace ywb::gui {

struct DatasetTab::Scan {
  int generation = 0;
  QString yaml;
  std::shared_ptr<const ywb::DatasetListing> listing;
  QString error;
  QVector<double> box_w, box_h;  // normalised sizes of the train boxes (up to 20000)
};

DatasetTab::DatasetTab(QWidget* parent) : QWidget(parent) {
  setObjectName("datasetTab");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* open = new QPushButton(tr("Open data.yaml..."), this);
  auto* create = new QPushButton(tr("Create from folder..."), this);
  create->setObjectName("createDatasetButton");
  create->setToolTip(
      tr("Write a data.yaml for a folder of images and YOLO labels (images/train + images/val, "
         "train/images + val/images, or one images/ folder split 9:1) and open it"));
  recent_ = new QComboBox(this);
  recent_->setObjectName("recentDatasets");
  recent_->setMinimumWidth(360);
  // Long paths are elided in the closed box, not widening the window (the list shows them whole).
  recent_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  recent_->setMinimumContentsLength(30);
  recent_->setPlaceholderText(tr("Recent datasets"));
  recent_->addItems(QSettings().value("datasets/recent").toStringList());
  recent_->setCurrentIndex(-1);
  auto* rescan = new QPushButton(tr("Rescan"), this);
  summary_ = new QLabel(tr("No dataset open."), this);
  summary_->setObjectName("datasetSummary");
  summary_->setWordWrap(true);  // it names the data.yaml: a long path wraps instead of widening the window
  bar->addWidget(open);
  bar->addWidget(create);
  bar->addWidget(recent_);
  bar->addWidget(rescan);
  bar->addWidget(summary_, 1);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("datasetSplitter");
  report_ = new QTreeWidget(split);
  report_->setObjectName("scanReport");
  report_->setHeaderLabels({tr("Item"), tr("Value")});
  report_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  report_->setToolTip(tr("Double-click a problem to open its image"));
  auto* charts = new QWidget(split);
  auto* cl = new QVBoxLayout(charts);
  cl->setContentsMargins(0, 0, 0, 0);
  histogram_ = new ClassHistogram(tr("Boxes per class (train)"), charts);
  histogram_->setObjectName("classHistogram");
  scatter_ = new MetricChart(tr("Box size (train)"), tr("width (fraction of image width)"),
                             tr("height (fraction of image height)"), charts);
  scatter_->setObjectName("boxScatter");
  scatter_->setLegendShown(false);
  const int s = scatter_->addSeries(tr("boxes"), MetricChart::color(0));
  scatter_->graph(s)->setLineStyle(QCPGraph::lsNone);
  scatter_->graph(s)->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x4f, 0xc3, 0xf7, 90), 3));
  cl->addWidget(histogram_);
  cl->addWidget(scatter_);
  auto* browser = new QSplitter(Qt::Vertical, split);
  browser->setObjectName("datasetBrowserSplitter");
  auto* list_box = new QWidget(browser);
  auto* ll = new QVBoxLayout(list_box);
  ll->setContentsMargins(0, 0, 0, 0);
  split_ = new QComboBox(list_box);
  split_->setObjectName("splitChooser");
  split_->setToolTip(tr("The split whose images are listed"));
  images_ = new QTreeWidget(list_box);
  images_->setObjectName("imageList");
  images_->setRootIsDecorated(false);
  images_->setUniformRowHeights(true);
  images_->setHeaderLabels({tr("File"), tr("Status"), tr("Boxes")});
  images_->header()->setStretchLastSection(false);
  images_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  images_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  images_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  ll->addWidget(split_);
  ll->addWidget(images_, 1);
  viewer_ = new BoxImageView(browser);
  viewer_->setObjectName("imageViewer");
  viewer_->setMessage(tr("Open a data.yaml to browse its images with their ground-truth boxes."));
  browser->setStretchFactor(0, 1);
  browser->setStretchFactor(1, 3);
  split->addWidget(report_);
  split->addWidget(charts);
  split->addWidget(browser);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 3);
  layout->addWidget(split, 1);

  connect(open, &QPushButton::clicked, this, &DatasetTab::chooseDataset);
  connect(create, &QPushButton::clicked, this, &DatasetTab::chooseFolder);
  connect(recent_, &QComboBox::activated, this, [this](int i) { openDataset(recent_->itemText(i)); });
  connect(rescan, &QPushButton::clicked, this, [this] {
    if (!yaml_.isEmpty()) openDataset(yaml_);
  });
  connect(images_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    const QString p = item ? item->data(0, Qt::UserRole).toString() : QString();
    if (p.isEmpty()) return;
    showImage(p);
    Q_EMIT imageSelected(p);
  });
  connect(split_, &QComboBox::currentTextChanged, this, [this](const QString& name) { showSplit(name); });
  connect(report_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    QString file = item->data(0, Qt::UserRole).toString();
    if (file.isEmpty() || !listing_) return;
    if (const ywb::ListedImage* img = listing_->findByLabel(file.toStdString()))
      file = QString::fromStdString(img->image);
    else if (!listing_->findByImage(file.toStdString()))
      return;  // an orphan label file: no image to show
    showImage(file);
  });
}

DatasetTab::~DatasetTab() {
  workers_.cancelAndWait();  // a scan's result must not arrive at a destroyed tab
}

void DatasetTab::chooseDataset() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open dataset"), QString(), datasetFileFilter());
  if (!path.isEmpty()) openDataset(path);
}

void DatasetTab::chooseFolder() {
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Dataset folder (images and labels)"), QString());
  if (folder.isEmpty()) return;
  bool overwrite = false;
  const QString existing = QDir(folder).filePath("data.yaml");
  if (QFileInfo::exists(existing)) {
    QMessageBox box(
        QMessageBox::Question, tr("data.yaml exists"),
        tr("%1 already exists. Open it, or replace it with one written from the folder?").arg(existing),
        QMessageBox::Cancel, this);
    QPushButton* open = box.addButton(tr("Open it"), QMessageBox::AcceptRole);
    QPushButton* replace = box.addButton(tr("Replace it"), QMessageBox::DestructiveRole);
    box.exec();
    if (box.clickedButton() == open) return openDataset(existing);
    if (box.clickedButton() != replace) return;
    overwrite = true;
  }
  createFromFolder(folder, overwrite);
}

void DatasetTab::createFromFolder(const QString& folder, bool overwrite, const QStringList& names) {
  summary_->setText(tr("Looking for images and labels in %1 ...").arg(folder));
  ywb::DatasetInitOptions o;
  o.folder = folder.toStdString();
  o.overwrite = overwrite;
  for (const QString& n : names) o.names.push_back(n.toStdString());
  QPointer<DatasetTab> self(this);
  // Reading every label file of a large dataset takes a while: off the GUI thread.
  workers_.start("ywb-dataset-init", [self, o] {
    QString yaml, text, error;
    try {
      const ywb::DatasetInitReport r = ywb::initDatasetYaml(o);
      yaml = QString::fromStdString(r.data_yaml);
      text = QString::fromStdString(ywb::datasetInitText(r)).trimmed();
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, yaml, text, error] {
          if (!self) return;
          if (!error.isEmpty()) {
            self->summary_->setText(tr("Could not create a data.yaml: %1").arg(error));
            Q_EMIT self->logLine(self->summary_->text());
            Q_EMIT self->datasetCreated(false, error);
            return;
          }
          for (const QString& line : text.split('\n')) Q_EMIT self->logLine(line);
          Q_EMIT self->datasetCreated(true, yaml);
          self->openDataset(yaml);
        },
        Qt::QueuedConnection);
  });
}

void DatasetTab::rememberRecent(const QString& yaml) {
  QSettings settings;
  QStringList list = settings.value("datasets/recent").toStringList();
  list.removeAll(yaml);
  list.prepend(yaml);
  while (list.size() > 10) list.removeLast();
  settings.setValue("datasets/recent", list);
  const QSignalBlocker block(recent_);
  recent_->clear();
  recent_->addItems(list);
  recent_->setCurrentIndex(0);
}

void DatasetTab::openDataset(const QString& yaml) {
  yaml_ = QFileInfo(yaml).absoluteFilePath();
  summary_->setText(tr("Scanning %1 ...").arg(yaml_));
  const int gen = ++generation_;
  QPointer<DatasetTab> self(this);
  workers_.start("ywb-dataset-scan", [self, gen, path = yaml_] {
    Scan scan;
    scan.generation = gen;
    scan.yaml = path;
    try {
      auto listing = std::make_shared<ywb::DatasetListing>(ywb::listDataset(path.toStdString(), 2));
      for (const ywb::SplitListing& s : listing->splits) {
        if (s.split != "train") continue;
        for (const ywb::ListedImage& img : s.images)
          for (const ywb::ListedBox& b : img.boxes) {
            if (scan.box_w.size() >= 20000) break;
            scan.box_w << b.w;
            scan.box_h << b.h;
          }
      }
      scan.listing = std::move(listing);
    } catch (const std::exception& e) {
      scan.error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        self,
        [self, scan] {
          if (self) self->showScan(scan);
        },
        Qt::QueuedConnection);
  });
}

void DatasetTab::showScan(const Scan& scan) {
  if (scan.generation != generation_) return;
  report_->clear();
  if (!scan.error.isEmpty()) {
    summary_->setText(tr("Could not open the dataset: %1").arg(scan.error));
    Q_EMIT logLine(summary_->text());
    Q_EMIT datasetScanned(false);
    return;
  }
  rememberRecent(scan.yaml);
  listing_ = scan.listing;
  const ywb::DatasetReport& r = listing_->report;
  names_.clear();
  for (const auto& n : r.config.names) names_ << QString::fromStdString(n);
  int problems = 0;
  for (const ywb::SplitReport& s : r.splits) {
    auto* top = new QTreeWidgetItem(
        report_, {QString::fromStdString(s.split), tr("%1 images, %2 boxes").arg(s.images).arg(s.boxes)});
    const QList<QPair<QString, int>> rows = {{tr("with labels"), s.with_labels},
                                             {tr("backgrounds"), s.backgrounds},
                                             {tr("orphan label files"), s.orphans},
                                             {tr("corrupt (excluded)"), s.corrupt},
                                             {tr("duplicate rows removed"), s.duplicates_removed},
                                             {tr("zero-area rows dropped"), s.rows_dropped}};
    for (const auto& kv : rows) new QTreeWidgetItem(top, {kv.first, QString::number(kv.second)});
    new QTreeWidgetItem(top, {tr("scan"), s.from_cache ? tr("from cache, %1 s").arg(s.seconds, 0, 'f', 2)
                                                       : tr("%1 s").arg(s.seconds, 0, 'f', 2)});
    if (!s.problems.empty()) {
      auto* pr = new QTreeWidgetItem(top, {tr("problems"), QString::number(s.problems.size())});
      pr->setForeground(1, QColor(0xe5, 0x73, 0x73));
      for (const auto& p : s.problems) {
        const QString file = QString::fromStdString(p.file);
        auto* it = new QTreeWidgetItem(
            pr, {QFileInfo(file).fileName() + (p.line > 0 ? QString(":%1").arg(p.line) : QString()),
                 QString::fromStdString(p.reason)});
        it->setData(0, Qt::UserRole, file);
        it->setToolTip(0, file);
        it->setToolTip(1, QString::fromStdString(p.reason));
      }
      problems += int(s.problems.size());
    }
    top->setExpanded(true);
  }
  summary_->setText(tr("%1: %2 classes, %3 problem(s)%4")
                        .arg(scan.yaml)
                        .arg(names_.size())
                        .arg(problems)
                        .arg(r.ok() ? QString() : tr("  (not ready for training)")));

  // class histogram of the train split
  QVector<int> per_class;
  if (!r.splits.empty())
    for (int c : r.splits.front().per_class) per_class << c;
  histogram_->setCounts(names_, per_class);
  scatter_->graph(0)->setData(scan.box_w, scan.box_h);
  scatter_->xAxis->setRange(0, 1);
  scatter_->yAxis->setRange(0, 1);
  scatter_->replot(QCustomPlot::rpQueuedReplot);

  {
    const QSignalBlocker block(split_);
    split_->clear();
    for (const ywb::SplitListing& sl : listing_->splits) split_->addItem(QString::fromStdString(sl.split));
  }
  if (!listing_->splits.empty()) showSplit(QString::fromStdString(listing_->splits.front().split));
  Q_EMIT logLine(tr("Dataset %1 scanned: %2 problem(s)").arg(scan.yaml).arg(problems));
  Q_EMIT datasetOpened(scan.yaml);
  Q_EMIT datasetScanned(r.ok());
}

bool DatasetTab::showSplit(const QString& split) {
  if (!listing_) return false;
  for (const ywb::SplitListing& s : listing_->splits) {
    if (QString::fromStdString(s.split) != split) continue;
    const QSignalBlocker block(split_);
    split_->setCurrentText(split);
    fillImages(s);
    return true;
  }
  return false;
}

void DatasetTab::fillImages(const ywb::SplitListing& split) {
  images_->clear();
  QList<QTreeWidgetItem*> items;
  items.reserve(int(split.images.size()));
  for (const ywb::ListedImage& img : split.images) {
    const QString path = QString::fromStdString(img.image);
    const QString status = QString::fromUtf8(ywb::imageStatusName(img.status));
    auto* it =
        new QTreeWidgetItem({QString::fromStdString(img.name), status, QString::number(img.boxes.size())});
    it->setData(0, Qt::UserRole, path);
    it->setToolTip(0, path);
    it->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
    if (img.status == ywb::ImageStatus::Problem) {
      it->setForeground(1, QColor(0xe5, 0x73, 0x73));
      it->setToolTip(1, QString::fromStdString(img.problem));
    } else if (img.status == ywb::ImageStatus::Background) {
      it->setForeground(1, QColor(0x9e, 0x9e, 0x9e));
      it->setToolTip(1, tr("no boxes: trained on as background"));
    }
    items << it;
  }
  images_->addTopLevelItems(items);
  if (!items.isEmpty()) images_->setCurrentItem(items.front());
}

void DatasetTab::showImage(const QString& path) {
  QImage img(path);
  if (img.isNull()) {
    viewer_->setMessage(tr("Cannot read %1").arg(path));
    return;
  }
  QVector<ViewBox> boxes;
  const ywb::ListedImage* listed = listing_ ? listing_->findByImage(path.toStdString()) : nullptr;
  if (listed) {
    for (const ywb::ListedBox& b : listed->boxes) {
      const QRectF rect((b.cx - b.w / 2) * img.width(), (b.cy - b.h / 2) * img.height(), b.w * img.width(),
                        b.h * img.height());
      boxes << ViewBox{rect, b.cls < names_.size() ? names_[b.cls] : QString::number(b.cls),
                       BoxImageView::classColor(b.cls), false};
    }
  }
  viewer_->setImage(img, boxes);
  viewer_->setToolTip(path);
}

}  // namespace ywb::gui
