// The one set of training arguments the GUI edits: the Hyperparameters and Augmentation tabs are two views of
// this value (no copies kept in step by hand). Changes go through set()/update(), which check them with the
// engine's own rules and announce what changed.
// Thread rules: GUI thread only.
#pragma once
#include <QObject>
#include <QString>
#include <functional>

#include "ywb/train_args.h"

namespace ywb::gui {

class TrainArgsModel : public QObject {
  Q_OBJECT
 public:
  explicit TrainArgsModel(QObject* parent = nullptr) : QObject(parent) {}
  const ywb::TrainArgs& args() const { return args_; }
  /// Sets one argument from text with TrainArgs::set's checks. False (nothing changes) for an unknown name
  /// or a rejected value, with the reason in `error`.
  bool set(const QString& name, const QString& text, QString* error = nullptr);
  /// Applies a typed change to `names` (e.g. the augmentation fields); values are validated afterwards and
  /// the change is dropped when they are out of range.
  bool update(const QStringList& names, const std::function<void(ywb::TrainArgs&)>& change,
              QString* error = nullptr);
  /// Replaces every argument.
  void setAll(const ywb::TrainArgs& args);

 Q_SIGNALS:
  /// These arguments changed (all of them after setAll).
  void changed(const QStringList& names);

 private:
  ywb::TrainArgs args_;
};

}  // namespace ywb::gui
