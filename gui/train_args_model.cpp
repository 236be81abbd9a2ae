#include "train_args_model.h"

#include <exception>

namespace ywb::gui {

bool TrainArgsModel::set(const QString& name, const QString& text, QString* error) {
  ywb::TrainArgs next = args_;
  try {
    if (!next.set(name.toStdString(), text.toStdString())) {
      if (error) *error = QString("unknown training argument '%1'").arg(name);
      return false;
    }
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  if (next.get(name.toStdString()) == args_.get(name.toStdString())) return true;
  args_ = next;
  Q_EMIT changed({name});
  return true;
}

bool TrainArgsModel::update(const QStringList& names, const std::function<void(ywb::TrainArgs&)>& change,
                            QString* error) {
  ywb::TrainArgs next = args_;
  change(next);
  QStringList differ;
  try {
    for (const QString& n : names) {
      const std::string key = n.toStdString(), text = next.get(key);
      ywb::TrainArgs probe;
      probe.set(key, text);  // the table's range check, as for text
      if (text != args_.get(key)) differ << n;
    }
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  if (differ.isEmpty()) return true;
  args_ = next;
  Q_EMIT changed(differ);
  return true;
}

void TrainArgsModel::setAll(const ywb::TrainArgs& args) {
  args_ = args;
  QStringList all;
  for (const auto& spec : ywb::trainArgSpecs()) all << QString::fromStdString(spec.name);
  Q_EMIT changed(all);
}

}  // namespace ywb::gui
