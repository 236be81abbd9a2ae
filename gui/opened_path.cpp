#include "opened_path.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <exception>

#include "ywb/dataset.h"
#include "ywb/model_loading.h"
#include "ywb/run_files.h"
#include "ywb/train_args.h"
#include "ywb/tune.h"
#include "ywb/weights.h"

namespace ywb::gui {
namespace {

OpenedPath unknown(const QString& path, const QString& why) {
  return {OpenedPath::Unknown, path, why};
}

bool isRunFolder(const QDir& d) {
  return d.exists(ywb::run_files::kResults) || d.exists(ywb::run_files::kArgs) ||
         d.exists(ywb::run_files::kWeights);
}

OpenedPath classifyYaml(const QString& path) {
  QString data_error;
  try {
    ywb::loadDataConfig(path.toStdString());
    return {OpenedPath::Dataset, path, {}};
  } catch (const std::exception& e) {
    data_error = QString::fromUtf8(e.what());
  }
  try {
    ywb::TrainArgs a;
    const auto ignored = ywb::loadTrainArgsYaml(path.toStdString(), a);
    // Training arguments when it set any (or had only known keys); a data.yaml with a problem sets none.
    if (!ywb::changedTrainArgs(a).empty() || ignored.empty()) return {OpenedPath::Hyperparameters, path, {}};
  } catch (const std::exception& e) {
    return unknown(path, QObject::tr("%1 is neither a dataset (%2) nor training arguments (%3)")
                             .arg(path, data_error, QString::fromUtf8(e.what())));
  }
  return unknown(path, QObject::tr("%1 is not a usable data.yaml: %2").arg(path, data_error));
}

QString weightsPatterns() {
  QStringList patterns;
  for (const std::string& suffix : ywb::weightsFileSuffixes())
    patterns << "*" + QString::fromStdString(suffix);
  return patterns.join(' ');
}

}  // namespace

QString datasetFileFilter() {
  return QObject::tr("Dataset YAML (*.yaml *.yml)");
}

QString weightsFileFilter() {
  return QObject::tr("Weights (%1)").arg(weightsPatterns()) + ";;" + QObject::tr("All files (*)");
}

QString inferenceFileFilter() {
  return QObject::tr("Weights and exported models (%1 *.onnx *.torchscript)").arg(weightsPatterns()) + ";;" +
         weightsFileFilter();
}

QString openableFileFilter() {
  return QObject::tr("Datasets, training arguments and weights (*.yaml *.yml %1)").arg(weightsPatterns()) +
         ";;" + weightsFileFilter();
}

OpenedPath classifyPath(const QString& given) {
  const QFileInfo fi(given);
  const QString path = fi.absoluteFilePath();
  if (!fi.exists()) return unknown(path, QObject::tr("%1 does not exist").arg(path));
  if (!fi.isReadable()) return unknown(path, QObject::tr("%1 cannot be read (permissions)").arg(path));
  if (fi.isDir()) {
    const QDir d(path);
    if (ywb::isTuneFolder(path.toStdString())) {  // a `ywb tune` folder: its best run, among the others
      try {
        return {OpenedPath::Run, QString::fromStdString(ywb::bestTuneRun(path.toStdString())), {}};
      } catch (const std::exception& e) {
        return unknown(path, QObject::tr("%1 is a tune folder without a finished run: %2")
                                 .arg(path, QString::fromUtf8(e.what())));
      }
    }
    if (isRunFolder(d)) return {OpenedPath::Run, path, {}};
    for (const char* name : {"data.yaml", "data.yml"})
      if (d.exists(name)) return classifyYaml(d.filePath(name));
    return unknown(path, QObject::tr("%1 is a folder without a data.yaml, results.csv or weights/: open a "
                                     "dataset's data.yaml, a run folder or a weights file")
                             .arg(path));
  }
  const QString suffix = fi.suffix().toLower();
  if (suffix == "yaml" || suffix == "yml") return classifyYaml(path);
  // Anything else: weights if the engine's loader accepts it (it knows the formats, not the extension).
  try {
    ywb::loadModelHandle(path.toStdString());
    return {OpenedPath::Weights, path, {}};
  } catch (const std::exception& e) {
    return unknown(path,
                   QObject::tr("%1 could not be opened as weights: %2 (the GUI opens a data.yaml, a run "
                               "folder, weights or a YAML of training arguments)")
                       .arg(path, QString::fromUtf8(e.what())));
  }
}

}  // namespace ywb::gui
