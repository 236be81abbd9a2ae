#include "cli_training_run.h"

#include <signal.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace ywb::gui {
namespace {

bool phaseFromName(const QString& name, ywb::TrainPhase& out) {
  for (int i = 0; i <= int(ywb::TrainPhase::Failed); ++i) {
    const auto p = static_cast<ywb::TrainPhase>(i);
    if (name == QLatin1String(ywb::trainPhaseName(p))) {
      out = p;
      return true;
    }
  }
  return false;
}

std::string str(const QJsonObject& o, const char* key) {
  return o.value(QLatin1String(key)).toString().toStdString();
}

double num(const QJsonObject& o, const char* key) {
  return o.value(QLatin1String(key)).toDouble();
}

}  // namespace

CliTrainingRun::CliTrainingRun(QObject* parent) : QObject(parent) {
  proc_.setProcessChannelMode(QProcess::SeparateChannels);
  connect(&proc_, &QProcess::readyReadStandardOutput, this, &CliTrainingRun::readStdout);
  connect(&proc_, &QProcess::readyReadStandardError, this, &CliTrainingRun::readStderr);
  connect(&proc_, &QProcess::finished, this, &CliTrainingRun::onExit);
  connect(&proc_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      Q_EMIT failed(tr("could not start %1: %2").arg(proc_.program(), proc_.errorString()));
      Q_EMIT ended();
    }
  });
}

CliTrainingRun::~CliTrainingRun() {
  if (!running()) return;
  disconnect(&proc_, nullptr, this, nullptr);
  proc_.terminate();  // the ranks save `last` and exit
  if (!proc_.waitForFinished(30000)) {
    proc_.kill();
    proc_.waitForFinished(5000);
  }
}

QString CliTrainingRun::findCli() {
  const QString env = qEnvironmentVariable("YWB_CLI");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QDir app(QCoreApplication::applicationDirPath());
  // installed side by side; the build tree (gui/yolo-workbench, tests/gui/test_*, engine/cli/ywb)
  for (const char* rel : {"ywb", "../engine/cli/ywb", "../../engine/cli/ywb"}) {
    const QString p = app.absoluteFilePath(QString::fromLatin1(rel));
    if (QFileInfo(p).isExecutable() && QFileInfo(p).isFile()) return QFileInfo(p).canonicalFilePath();
  }
  return QStandardPaths::findExecutable("ywb");
}

QStringList CliTrainingRun::commandLine(const ywb::TrainArgs& args) {
  QStringList out{"train"};
  for (const auto& [key, value] : ywb::changedTrainArgs(args))
    out << QString::fromStdString(key) + "=" + QString::fromStdString(value);
  out << "--json";
  return out;
}

bool CliTrainingRun::start(const QString& program, const ywb::TrainArgs& args) {
  if (running()) return false;
  out_.clear();
  err_.clear();
  err_tail_.clear();
  got_finished_ = false;
  paused_ = false;
  validate_every_epoch_ = args.val;
  clock_.start();
  const QStringList argv = commandLine(args);
  Q_EMIT logLine(tr("$ %1 %2").arg(program, argv.join(' ')));
  proc_.start(program, argv);
  return true;
}

void CliTrainingRun::requestStop() {
  if (running()) proc_.terminate();
}

void CliTrainingRun::setPaused(bool paused) {
  if (!running() || paused == paused_) return;
  paused_ = paused;
  ::kill(pid_t(proc_.processId()), SIGUSR1);
}

void CliTrainingRun::readStdout() {
  out_ += proc_.readAllStandardOutput();
  for (qsizetype nl; (nl = out_.indexOf('\n')) >= 0;) {
    const QByteArray line = out_.left(nl).trimmed();
    out_.remove(0, nl + 1);
    if (!line.isEmpty()) handleEvent(line);
  }
}

void CliTrainingRun::readStderr() {
  err_ += proc_.readAllStandardError();
  for (qsizetype nl; (nl = err_.indexOf('\n')) >= 0;) {
    const QString line = QString::fromUtf8(err_.left(nl)).trimmed();
    err_.remove(0, nl + 1);
    if (line.isEmpty()) continue;
    err_tail_ << line;
    while (err_tail_.size() > 5) err_tail_.removeFirst();
    Q_EMIT logLine(line);
  }
}

void CliTrainingRun::handleEvent(const QByteArray& line) {
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject()) {
    Q_EMIT logLine(QString::fromUtf8(line));  // not an event: show it as it is
    return;
  }
  const QJsonObject o = doc.object();
  const QString event = o.value("event").toString();
  if (event == "phase") {
    ywb::TrainPhase p{};
    if (phaseFromName(o.value("phase").toString(), p)) Q_EMIT phase(p, o.value("detail").toString());
  } else if (event == "log") {
    Q_EMIT logLine(o.value("line").toString());
  } else if (event == "step") {
    // The JSON counts epochs and batches from 1, the structs from 0.
    ywb::StepMetrics m;
    m.epoch = o.value("epoch").toInt() - 1;
    m.epochs = o.value("epochs").toInt();
    m.batch = o.value("batch").toInteger() - 1;
    m.batches = o.value("batches").toInteger();
    m.iteration = int64_t(m.epoch) * m.batches + m.batch;
    m.box = num(o, "box");
    m.cls = num(o, "cls");
    m.dfl = num(o, "dfl");
    const QJsonArray lr = o.value("lr").toArray();
    for (int i = 0; i < 3 && i < lr.size(); ++i) m.lr[i] = lr[i].toDouble();
    m.images_per_s = num(o, "images_per_s");
    m.data_wait_s = num(o, "data_wait_s");
    m.compute_s = num(o, "compute_s");
    m.device_mem = o.value("device_mem").toInteger();
    m.eta_s = num(o, "eta_s");
    m.elapsed_s = double(clock_.elapsed()) / 1000.0;
    Q_EMIT step(m);
  } else if (event == "epoch") {
    ywb::EpochMetrics m;
    m.epoch = o.value("epoch").toInt() - 1;
    m.epochs = o.value("epochs").toInt();
    m.time_s = num(o, "time");
    m.train_box = num(o, "train/box_loss");
    m.train_cls = num(o, "train/cls_loss");
    m.train_dfl = num(o, "train/dfl_loss");
    m.val_box = num(o, "val/box_loss");
    m.val_cls = num(o, "val/cls_loss");
    m.val_dfl = num(o, "val/dfl_loss");
    m.precision = num(o, "metrics/precision(B)");
    m.recall = num(o, "metrics/recall(B)");
    m.map50 = num(o, "metrics/mAP50(B)");
    m.map = num(o, "metrics/mAP50-95(B)");
    m.fitness = m.map;
    m.best = o.value("best").toBool();
    // The event does not say whether the epoch was validated: the trainer validates every epoch with
    // val=true and always the last one.
    m.validated = o.contains("validated") ? o.value("validated").toBool()
                                          : validate_every_epoch_ || m.epoch + 1 == m.epochs;
    for (const QJsonValue& v : o.value("classes").toArray()) {
      const QJsonObject c = v.toObject();
      m.classes.push_back({str(c, "name"), c.value("instances").toInteger(), num(c, "precision"),
                           num(c, "recall"), num(c, "mAP50"), num(c, "mAP50-95")});
    }
    Q_EMIT epoch(m);
  } else if (event == "finished") {
    ywb::TrainSummary s;
    s.run_dir = str(o, "run_dir");
    s.last = str(o, "last");
    s.best = str(o, "best");
    s.epochs_completed = o.value("epochs_completed").toInt();
    s.best_epoch = o.value("best_epoch").toInt() - 1;
    s.best_fitness = num(o, "best_fitness");
    s.stopped = o.value("stopped").toBool();
    s.early_stopped = o.value("early_stopped").toBool();
    s.stop_reason = str(o, "reason");
    s.seconds = num(o, "seconds");
    s.images_per_s = num(o, "images_per_s");
    s.amp = str(o, "amp");
    got_finished_ = true;
    Q_EMIT finished(s);
  }
}

void CliTrainingRun::onExit(int code, QProcess::ExitStatus status) {
  readStdout();
  readStderr();
  if (!got_finished_) {
    const QString how = status == QProcess::CrashExit ? tr("crashed") : tr("exited with status %1").arg(code);
    Q_EMIT failed(tr("ywb train %1 before the run finished%2")
                      .arg(how, err_tail_.isEmpty() ? QString() : ": " + err_tail_.join(" | ")));
  }
  Q_EMIT ended();
}

}  // namespace ywb::gui
