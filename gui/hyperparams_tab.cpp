#include "hyperparams_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "official_weights_items.h"
#include "opened_path.h"
#include "ywb/doctor.h"
#include "ywb/error.h"
#include "ywb/model_info.h"

namespace ywb::gui {
namespace {

// Shows values compactly ("0.01", not "0.01000000") while keeping 8 decimals, so a user's YAML value such as
// lr0: 0.00123 survives load -> save unchanged.
class CompactDoubleSpinBox : public QDoubleSpinBox {
 public:
  explicit CompactDoubleSpinBox(QWidget* parent) : QDoubleSpinBox(parent) { setDecimals(8); }
  QString textFromValue(double v) const override { return QString::number(v, 'g', 8); }
};

QString groupTitle(const std::string& g) {
  QString t = QString::fromStdString(g);
  if (!t.isEmpty()) t[0] = t[0].toUpper();
  return t;
}

// The arguments that name a file get a file chooser beside their editor: the dataset, the model (a YAML, or
// weights to fine-tune) and the weights to start from (the suffixes are the engine's, opened_path.h).
QString fileFilterFor(const QString& name) {
  if (name == "data") return datasetFileFilter();
  if (name == "model") return QObject::tr("Model YAML (*.yaml *.yml)") + ";;" + weightsFileFilter();
  if (name == "pretrained") return weightsFileFilter();
  return {};
}

}  // namespace

HyperparamsTab::HyperparamsTab(TrainArgsModel* model, QWidget* parent)
    : QWidget(parent), model_(model ? model : new TrainArgsModel(this)) {
  setObjectName("hyperparamsTab");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* load = new QPushButton(tr("Load YAML..."), this);
  auto* save = new QPushButton(tr("Save YAML..."), this);
  auto* reset = new QPushButton(tr("Reset all to defaults"), this);
  status_ = new QLabel(tr("Ultralytics argument names and defaults; hover a name for its meaning and range."),
                       this);
  status_->setObjectName("hyperStatus");
  status_->setWordWrap(true);
  for (QPushButton* b : {load, save, reset}) bar->addWidget(b);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  auto* host = new QWidget(scroll);
  auto* columns = new QGridLayout(host);
  // Groups in spec order, laid out in three columns.
  QStringList order;
  QHash<QString, QFormLayout*> forms;
  for (const ywb::ArgSpec& spec : ywb::trainArgSpecs()) {
    const QString group = QString::fromStdString(spec.group);
    if (!forms.contains(group)) {
      auto* box = new QGroupBox(groupTitle(spec.group), host);
      auto* form = new QFormLayout(box);
      form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
      forms.insert(group, form);
      const int i = order.size();
      order << group;
      columns->addWidget(box, i / 3, i % 3, Qt::AlignTop);
    }
    const QString name = QString::fromStdString(spec.name);
    specs_.insert(name, spec);
    QWidget* ed = makeEditor(spec);
    auto* label = new QLabel(name, host);
    QString tip = QString::fromStdString(spec.help) + "\n" +
                  tr("default: %1").arg(QString::fromStdString(spec.default_text));
    if (spec.type == ywb::ArgType::Int || spec.type == ywb::ArgType::Double)
      tip += "\n" + tr("range: %1 .. %2").arg(spec.min).arg(spec.max);
    if (!spec.choices.empty()) {
      QStringList c;
      for (const auto& x : spec.choices) c << QString::fromStdString(x);
      tip += "\n" + tr("choices: %1").arg(c.join(", "));
    }
    label->setToolTip(tip);
    ed->setToolTip(tip);
    auto* row = new QWidget(host);
    auto* rl = new QHBoxLayout(row);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(ed, 1);
    const QString filter = fileFilterFor(name);
    if (!filter.isEmpty()) {
      auto* browse = new QToolButton(row);
      browse->setText(QString::fromUtf8("\u2026"));
      browse->setObjectName("browse_" + name);
      browse->setToolTip(tr("Choose a file for %1").arg(name));
      rl->addWidget(browse);
      connect(browse, &QToolButton::clicked, this, [this, name, filter] {
        const QString start = QFileInfo(value(name)).absolutePath();
        const QString path = QFileDialog::getOpenFileName(this, tr("Choose %1").arg(name), start, filter);
        if (!path.isEmpty() && !setValue(name, path)) status_->setText(tr("%1 was not accepted").arg(path));
      });
    }
    auto* r = new QToolButton(row);
    r->setText(QString::fromUtf8("\u21ba"));
    r->setToolTip(tr("Reset %1 to %2").arg(name, QString::fromStdString(spec.default_text)));
    r->setEnabled(false);
    rl->addWidget(r);
    connect(r, &QToolButton::clicked, this,
            [this, name, d = QString::fromStdString(spec.default_text)] { setValue(name, d); });
    labels_.insert(name, label);
    resets_.insert(name, r);
    forms.value(group)->addRow(label, row);
  }
  // What amp=true does on this machine's CPU (the engine's one answer; a run measures and logs its choice).
  if (QFormLayout* hw = forms.value("hardware")) {
    const ywb::CpuBf16 bf16 = ywb::cpuBf16Support();
    auto* note =
        new QLabel(bf16.native ? tr("CPU bf16: %1. On a CPU, amp=true trains in bf16 where the run "
                                    "measures it faster than fp32.")
                                     .arg(QString::fromStdString(bf16.summary))
                               : tr("CPU bf16: %1. On a CPU, amp=true trains in fp32 here unless the "
                                    "run measures bf16 faster; amp_dtype=bf16 forces it.")
                                     .arg(QString::fromStdString(bf16.summary)),
                   host);
    note->setObjectName("ampCpuNote");
    note->setWordWrap(true);
    // Right under amp and amp_dtype, the two fields it explains.
    int at = -1;
    QFormLayout::ItemRole role;
    if (QLabel* dtype = labels_.value("amp_dtype")) hw->getWidgetPosition(dtype, &at, &role);
    hw->insertRow(at >= 0 ? at + 1 : -1, note);
  }
  columns->setRowStretch(columns->rowCount(), 1);
  scroll->setWidget(host);
  layout->addWidget(scroll, 1);

  connect(load, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load training arguments"), QString(),
                                                      tr("YAML (*.yaml *.yml);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !loadYaml(path, &error)) status_->setText(error);
  });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save training arguments"), "args.yaml",
                                                      tr("YAML (*.yaml *.yml)"));
    QString error;
    if (!path.isEmpty() && !saveYaml(path, &error)) status_->setText(error);
  });
  connect(reset, &QPushButton::clicked, this, &HyperparamsTab::resetAll);
  connect(model_, &TrainArgsModel::changed, this, &HyperparamsTab::showModel);
  showModel(editors_.keys());  // a shared model may already hold values
}

void HyperparamsTab::showModel(const QStringList& names) {
  // Editors show the model; blocking their signals keeps this from echoing back into the model.
  for (const QString& name : names) {
    QWidget* w = editors_.value(name);
    if (!w) continue;
    const QSignalBlocker block(w);
    writeEditor(name, QString::fromStdString(model_->args().get(name.toStdString())));
    markModified(name);
  }
  if (!names.isEmpty()) Q_EMIT argsChanged();
}

QWidget* HyperparamsTab::makeEditor(const ywb::ArgSpec& spec) {
  const QString name = QString::fromStdString(spec.name);
  QWidget* w = nullptr;
  auto changed = [this, name] {
    QString error;
    if (!model_->set(name, readEditor(name), &error)) status_->setText(error);
  };
  switch (spec.type) {
    case ywb::ArgType::Int: {
      auto* s = new QSpinBox(this);
      s->setRange(int(std::max(spec.min, -2147483647.0)), int(std::min(spec.max, 2147483647.0)));
      s->setValue(QString::fromStdString(spec.default_text).toInt());
      connect(s, &QSpinBox::valueChanged, this, changed);
      w = s;
      break;
    }
    case ywb::ArgType::Double: {
      auto* s = new CompactDoubleSpinBox(this);
      s->setRange(spec.min, spec.max);
      s->setSingleStep(std::pow(10.0, std::floor(std::log10(std::max(spec.max, 1e-9)))) / 100.0);
      if (spec.name == "batch")
        s->setSingleStep(1);  // a number for its AutoBatch fraction; sizes step by one
      s->setValue(QString::fromStdString(spec.default_text).toDouble());
      connect(s, &QDoubleSpinBox::valueChanged, this, changed);
      w = s;
      break;
    }
    case ywb::ArgType::Bool: {
      auto* c = new QCheckBox(this);
      c->setChecked(spec.default_text == "true");
      connect(c, &QCheckBox::toggled, this, changed);
      w = c;
      break;
    }
    case ywb::ArgType::String: {
      if (spec.name == "model" || spec.name == "pretrained") {
        // The built-in families and scales (the engine's list: YOLOv8, YOLO11, YOLO26) for model, and the
        // official pretrained weights (downloaded on first use) for both; a path can still be typed.
        auto* c = new QComboBox(this);
        c->setEditable(true);
        if (spec.name == "model") {
          for (const auto& x : ywb::builtInModelNames()) c->addItem(QString::fromStdString(x));
        } else {
          c->addItem(QString());  // no transfer
        }
        addOfficialWeightsItems(c);
        c->setCurrentText(QString::fromStdString(spec.default_text));
        connect(c, &QComboBox::currentTextChanged, this, changed);
        w = c;
      } else if (!spec.choices.empty()) {
        auto* c = new QComboBox(this);
        for (const auto& x : spec.choices) c->addItem(QString::fromStdString(x));
        c->setCurrentText(QString::fromStdString(spec.default_text));
        connect(c, &QComboBox::currentTextChanged, this, changed);
        w = c;
      } else {
        auto* e = new QLineEdit(QString::fromStdString(spec.default_text), this);
        e->setPlaceholderText(tr("(empty)"));
        connect(e, &QLineEdit::textChanged, this, changed);
        w = e;
      }
      break;
    }
  }
  w->setObjectName("arg_" + name);
  editors_.insert(name, w);
  return w;
}

void HyperparamsTab::writeEditor(const QString& name, const QString& text) {
  QWidget* w = editors_.value(name);
  if (auto* s = qobject_cast<QSpinBox*>(w))
    s->setValue(text.toInt());
  else if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
    d->setValue(text.toDouble());
  else if (auto* c = qobject_cast<QCheckBox*>(w))
    c->setChecked(text == "true");
  else if (auto* b = qobject_cast<QComboBox*>(w))
    b->setCurrentText(text);
  else if (auto* e = qobject_cast<QLineEdit*>(w)) {
    // A spelling that means the value stays as typed: rewriting "5," (freeze: 5) to its canonical form while
    // the user types would drop the comma, and "[0, 5]" could never be typed as "5,0".
    ywb::TrainArgs typed;
    bool same = false;
    try {
      same = typed.set(name.toStdString(), e->text().toStdString()) &&
             typed.get(name.toStdString()) == text.toStdString();
    } catch (const ywb::Error&) {
    }
    if (!same) e->setText(text);
  }
}

QString HyperparamsTab::readEditor(const QString& name) const {
  QWidget* w = editors_.value(name);
  if (auto* s = qobject_cast<QSpinBox*>(w)) return QString::number(s->value());
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) return QString::number(d->value(), 'g', 10);
  if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked() ? "true" : "false";
  if (auto* b = qobject_cast<QComboBox*>(w)) return b->currentText();
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return {};
}

void HyperparamsTab::markModified(const QString& name) {
  const std::string key = name.toStdString();
  const bool mod = model_->args().get(key) != ywb::TrainArgs{}.get(key);
  labels_[name]->setStyleSheet(mod ? "color: #f5a623; font-weight: bold;" : QString());
  resets_[name]->setEnabled(mod);
}

void HyperparamsTab::setArgs(const ywb::TrainArgs& a) {
  model_->setAll(a);
}

bool HyperparamsTab::setValue(const QString& name, const QString& value) {
  if (!editors_.contains(name)) return false;
  const ywb::ArgSpec& spec = specs_[name];
  if (!spec.choices.empty() &&
      std::find(spec.choices.begin(), spec.choices.end(), value.toStdString()) == spec.choices.end()) {
    QStringList c;
    for (const auto& x : spec.choices) c << QString::fromStdString(x);
    status_->setText(tr("%1=%2: expected one of %3").arg(name, value, c.join(", ")));
    return false;
  }
  QString error;
  if (!model_->set(name, value, &error)) {  // the engine's own range/type check
    status_->setText(error);
    return false;
  }
  return true;
}

QString HyperparamsTab::value(const QString& name) const {
  return readEditor(name);
}

QStringList HyperparamsTab::modified() const {
  QStringList out;
  for (const auto& kv : ywb::changedTrainArgs(args())) out << QString::fromStdString(kv.first);
  return out;
}

bool HyperparamsTab::loadYaml(const QString& path, QString* error) {
  ywb::TrainArgs a;
  try {
    const auto unknown = ywb::loadTrainArgsYaml(path.toStdString(), a);
    setArgs(a);
    QStringList u;
    for (const auto& k : unknown) u << QString::fromStdString(k);
    const QString msg =
        u.isEmpty() ? tr("Loaded %1").arg(path)
                    : tr("Loaded %1; ignored keys this trainer does not use: %2").arg(path, u.join(", "));
    status_->setText(msg);
    Q_EMIT logLine(msg);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    Q_EMIT logLine(tr("Could not load %1: %2").arg(path, QString::fromUtf8(e.what())));
    return false;
  }
}

bool HyperparamsTab::saveYaml(const QString& path, QString* error) {
  QSaveFile f(path);
  const std::string text = ywb::trainArgsToYaml(args());
  if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
      !f.commit()) {
    if (error) *error = tr("Could not write %1: %2").arg(path, f.errorString());
    return false;
  }
  status_->setText(tr("Saved %1").arg(path));
  return true;
}

void HyperparamsTab::showStatus(const QString& text) {
  status_->setText(text);
}

QString HyperparamsTab::status() const {
  return status_->text();
}

void HyperparamsTab::resetAll() {
  setArgs(ywb::TrainArgs{});
}

}  // namespace ywb::gui
