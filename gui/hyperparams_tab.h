// The Hyperparameters tab: one editor per training argument, generated from ywb::trainArgSpecs() (grouped,
// Ultralytics names, tooltips with the help text, default and range; ranges enforced by the editors),
// modified values highlighted, per-argument and global reset, YAML load/save (a user's Ultralytics YAML
// loads; unknown keys are listed, not fatal). It is a view of a TrainArgsModel, shared with the Augmentation
// tab. Thread rules: GUI thread only.
#pragma once
#include <QHash>
#include <QWidget>

#include "train_args_model.h"
#include "ywb/train_args.h"

class QLabel;

namespace ywb::gui {

class HyperparamsTab : public QWidget {
  Q_OBJECT
 public:
  /// A view of `model` (nullptr: a model of its own).
  explicit HyperparamsTab(TrainArgsModel* model, QWidget* parent = nullptr);
  explicit HyperparamsTab(QWidget* parent = nullptr) : HyperparamsTab(nullptr, parent) {}
  /// The arguments as currently edited.
  ywb::TrainArgs args() const { return model_->args(); }
  TrainArgsModel* model() const { return model_; }
  /// Shows `args` in the editors.
  void setArgs(const ywb::TrainArgs& args);
  /// Sets one argument from text; returns false (and changes nothing) when the value is rejected.
  bool setValue(const QString& name, const QString& value);
  QString value(const QString& name) const;
  /// Names of the arguments that differ from their defaults.
  QStringList modified() const;
  /// The editor widget of an argument (objectName "arg_<name>").
  QWidget* editor(const QString& name) const { return editors_.value(name); }
  /// Loads YAML over the defaults. Returns false and sets `error` on failure; unknown keys go to the status
  /// line.
  bool loadYaml(const QString& path, QString* error = nullptr);
  bool saveYaml(const QString& path, QString* error = nullptr);
  /// Shows `text` in the tab's status line (where the arguments came from, what was ignored).
  void showStatus(const QString& text);
  QString status() const;

 public Q_SLOTS:
  void resetAll();

 Q_SIGNALS:
  /// Some argument changed (by the user or programmatically).
  void argsChanged();
  void logLine(const QString& line);

 private:
  QWidget* makeEditor(const ywb::ArgSpec& spec);
  void writeEditor(const QString& name, const QString& text);
  QString readEditor(const QString& name) const;
  void markModified(const QString& name);
  void showModel(const QStringList& names);

  QHash<QString, QWidget*> editors_;
  QHash<QString, QLabel*> labels_;
  QHash<QString, QWidget*> resets_;
  QHash<QString, ywb::ArgSpec> specs_;
  QLabel* status_ = nullptr;
  TrainArgsModel* model_ = nullptr;
};

}  // namespace ywb::gui
