#include "run_results.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <exception>

#include "ywb/results_csv.h"
#include "ywb/run_files.h"
#include "ywb/train_log.h"

namespace ywb::gui {

bool RunResults::load(const QString& run_dir) {
  dir = run_dir;
  columns.clear();
  values.clear();
  best = -1;
  error.clear();
  model.clear();
  args = ywb::TrainArgs{};
  has_args = false;
  args_error.clear();
  unknown_args.clear();
  split = "val";
  log.clear();
  has_log = false;
  log_error.clear();
  const QString args_path =
      QString::fromStdString(ywb::run_files::path(run_dir.toStdString(), ywb::run_files::kArgs));
  if (QFileInfo::exists(args_path)) {
    try {  // which model (family and scale) the run trained, its dataset, schedule and validation split
      for (const auto& k : ywb::loadTrainArgsYaml(args_path.toStdString(), args))
        if (k != "split")
          unknown_args << QString::fromStdString(k);  // split: read just below, for Predictions
      split = QString::fromStdString(ywb::runValidationSplit(args_path.toStdString()));
      has_args = true;
      model = QString::fromStdString(args.model);
    } catch (const std::exception& e) {
      args = ywb::TrainArgs{};
      unknown_args.clear();
      args_error = QString::fromUtf8(e.what());
    }
  }
  const QString path =
      QString::fromStdString(ywb::run_files::path(run_dir.toStdString(), ywb::run_files::kResults));
  if (!QFileInfo::exists(path)) return false;
  try {
    const std::vector<ywb::ResultsRow> rows = ywb::readResults(path.toStdString());
    for (const auto& c : ywb::resultsColumns()) columns << QString::fromStdString(c);
    for (const auto& r : rows) {
      const std::vector<double> v = ywb::resultsRowValues(r);
      for (int i = 0; i < columns.size(); ++i) values[columns[i]] << v[size_t(i)];
    }
    best = ywb::bestResultsRow(rows);
  } catch (const std::exception& e) {
    columns.clear();
    values.clear();
    error = QString::fromUtf8(e.what());
    return false;
  }
  return true;
}

void RunResults::loadLog() {
  log.clear();
  has_log = false;
  log_error.clear();
  try {  // the last 4 MiB: the log view keeps 20,000 lines (~100 characters each at most)
    for (const auto& l : ywb::readRunLog(dir.toStdString(), 4u << 20, &has_log))
      log << QString::fromStdString(l);
  } catch (const std::exception& e) {
    has_log = true;
    log_error = QString::fromUtf8(e.what());
  }
}

int RunResults::lastEpoch() const {
  const auto& ep = values.value("epoch");
  return ep.isEmpty() ? 0 : int(ep.back());
}

int RunResults::bestEpoch() const {
  const auto& ep = values.value("epoch");
  return best >= 0 && best < ep.size() ? int(ep[best]) : 0;
}

QString RunResults::dataYaml() const {
  if (!has_args || args.data.empty()) return {};
  const QString data = QString::fromStdString(args.data);
  if (QFileInfo(data).isAbsolute()) return QFileInfo::exists(data) ? data : QString();
  if (QFileInfo::exists(data)) return QFileInfo(data).absoluteFilePath();
  QDir d(dir);
  for (int up = 0; up <= 3; ++up) {
    if (QFileInfo::exists(d.filePath(data))) return QFileInfo(d.filePath(data)).absoluteFilePath();
    if (!d.cdUp()) break;
  }
  return {};
}

QStringList RunResults::problems() const {
  QStringList out;
  if (!error.isEmpty())
    out << QObject::tr("results.csv could not be read (%1): no charts").arg(error);
  else if (!QFileInfo::exists(dir + "/" + ywb::run_files::kResults))
    out << QObject::tr("results.csv is missing: no charts");
  if (!args_error.isEmpty())
    out << QObject::tr("args.yaml could not be read (%1): no dataset, schedule or resume settings")
               .arg(args_error);
  else if (!has_args)
    out << QObject::tr("args.yaml is missing: no dataset, schedule or resume settings");
  if (!log_error.isEmpty()) out << QObject::tr("its log could not be read (%1)").arg(log_error);
  if (args_error.isEmpty() && has_args && !args.data.empty() && dataYaml().isEmpty())
    out << QObject::tr("the dataset %1 named in args.yaml was not found")
               .arg(QString::fromStdString(args.data));
  return out;
}

}  // namespace ywb::gui
