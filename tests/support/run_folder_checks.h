// What a run folder must look like after a kill (tests/engine/test_kill_storm): every checkpoint in weights/
// loads completely, `last` holds every announced epoch and `best` the epoch `last` names; and bit-exact
// comparison of two finished runs' checkpoints and results.csv.
#pragma once
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <set>
#include <string>

#include "io/safetensors.h"
#include "train/checkpoint.h"
#include "train/checkpoint_state.h"
#include "ywb/results_csv.h"

namespace ywb::test {

struct Ckpt {
  SafetensorsFile file;
  CheckpointState state;
};

inline Ckpt loadCkpt(const QString& path) {
  Ckpt c;
  c.file = readCheckpoint(path.toStdString());  // parses the header and every tensor's byte range
  c.state = CheckpointState::fromMetadata(c.file.metadata, c.file.source);
  return c;
}

inline std::set<std::string> tensorNames(const SafetensorsFile& f) {
  std::set<std::string> s;
  for (const auto& [name, t] : f.tensors) s.insert(name);
  return s;
}

// weights/ after a kill: "" when sound, else what is wrong. `announced`: epochs the run reported as saved
// (the epoch event follows the checkpoint write). Counts partial temporary files in `partials`.
inline QString checkWeights(const QString& run, const std::set<std::string>& names, int announced,
                            int& partials) {
  const QDir w(run + "/weights");
  for (const QString& f : w.entryList(QDir::Files | QDir::Hidden)) {
    if (!f.endsWith(".safetensors")) {
      if (!f.contains(".tmp")) return "unexpected file " + f;
      ++partials;  // an interrupted write: never read as a checkpoint (it does not end in .safetensors)
      continue;
    }
    try {
      const Ckpt c = loadCkpt(w.filePath(f));
      if (tensorNames(c.file) != names)
        return f + QString(": %1 tensors, a complete checkpoint has %2")
                       .arg(c.file.tensors.size())
                       .arg(names.size());
    } catch (const std::exception& e) {
      return f + " does not load: " + e.what();
    }
  }
  const bool has_last = w.exists("last.safetensors");
  if (announced > 0 && !has_last)
    return QString("epoch %1 was saved but weights/last.safetensors is missing").arg(announced);
  if (!has_last) return "";
  const Ckpt last = loadCkpt(w.filePath("last.safetensors"));
  if (last.state.epoch < announced)
    return QString("last holds epoch %1, but epoch %2 was announced as saved")
        .arg(last.state.epoch)
        .arg(announced);
  if (last.state.best_epoch >= 0) {
    if (!w.exists("best.safetensors"))
      return QString("last names epoch %1 as best, but best.safetensors is missing")
          .arg(last.state.best_epoch + 1);
    // best holds the epoch last names, or the next one when that epoch's save was cut short between writing
    // best and last (a resume repeats that epoch and writes the same best again).
    const Ckpt best = loadCkpt(w.filePath("best.safetensors"));
    if (best.state.epoch != last.state.best_epoch + 1 && best.state.epoch != last.state.epoch + 1)
      return QString("last names epoch %1 as best, but best.safetensors holds epoch %2")
          .arg(last.state.best_epoch + 1)
          .arg(best.state.epoch);
  }
  const QString csv = run + "/results.csv";
  if (QFile::exists(csv)) {
    try {
      const auto rows = readResults(csv.toStdString());
      for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].epoch != int(i) + 1)
          return QString("results.csv row %1 is epoch %2").arg(i + 1).arg(rows[i].epoch);
    } catch (const std::exception& e) {
      return QString("results.csv does not read: ") + e.what();
    }
  }
  return "";
}

// results.csv without its wall-clock column (column 1), as text: the rest must match to the last digit.
inline QString csvWithoutTime(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return "(missing " + path + ")";
  QStringList out;
  for (const QString& line : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
    QStringList cells = line.split(',');
    if (cells.size() > 1) cells.removeAt(1);
    out << cells.join(',');
  }
  return out.join('\n');
}

// "" when the two checkpoints hold the same tensors bit for bit and the same run position.
inline QString sameCheckpoint(const QString& a_path, const QString& b_path) {
  const Ckpt a = loadCkpt(a_path), b = loadCkpt(b_path);
  if (tensorNames(a.file) != tensorNames(b.file)) return "different tensor names";
  for (const auto& [name, t] : a.file.tensors)
    if (!t.equal(b.file.at(name))) return QString::fromStdString("tensor " + name + " differs");
  const auto& x = a.state;
  const auto& y = b.state;
  if (x.epoch != y.epoch || x.best_epoch != y.best_epoch || x.best_fitness != y.best_fitness ||
      x.ema_updates != y.ema_updates || x.last_opt_step != y.last_opt_step || x.metrics != y.metrics)
    return "run position or metrics differ";
  return "";
}

}  // namespace ywb::test
