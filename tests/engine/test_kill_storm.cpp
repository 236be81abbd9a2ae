// Kill storm (issue 17, "Killed at any moment"): a short CPU run of the real `ywb train` is SIGKILLed again
// and again - during start-up, steps, validation, checkpoint writes, the epoch's end and the end-of-run
// plots - and continued with `ywb train resume=RUN` each time until it finishes. After every kill each
// checkpoint in weights/ must load completely (a temporary file may be left, never a torn `.safetensors`),
// `last` must hold every epoch the run announced as saved and `best` the epoch `last` names as best. The
// finished run must equal an uninterrupted one of the same arguments bit for bit: results.csv bar its time
// column, and both checkpoints tensor by tensor; and it must have its plots.
//
// Kill moments come from the run's own timing: the uninterrupted reference run is timed event by event
// (its --json lines), then each kill picks a target (what the child should be doing), waits for the event
// that opens it (a step's end, "validating", "saving", an epoch's end) and strikes after a random part of
// that phase's measured length. Where the kill really landed is read afterwards from the last event the
// child printed and from partial files in weights/. Everything random derives from a seed printed by the
// test: YWB_KILL_STORM_SEED=N repeats the same kill plan (moments shift with the machine's load).
// YWB_KILL_STORM_KILLS (default 10) sets the number of kills; the storm goes on in fresh runs of the same
// arguments ("rounds") until that many have landed. tests/reliability/kill_storm.sh runs 100.
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "io/safetensors.h"
#include "support/event_child.h"
#include "support/run_folder_checks.h"
#include "support/tiny_run.h"
#include "train/checkpoint.h"
#include "train/checkpoint_state.h"
#include "ywb/results_csv.h"

namespace {

using ywb::TrainEvent;
using ywb::TrainPhase;
using ywb::test::checkWeights;
using ywb::test::csvWithoutTime;
using ywb::test::EventChild;
using ywb::test::isPhase;
using ywb::test::loadCkpt;
using ywb::test::sameCheckpoint;
using ywb::test::StampedEvent;
using ywb::test::tensorNames;

// RunEnd: after the last epoch's checkpoint, while the end-of-run plots are written (CI once landed a kill
// there by chance; its resume had nothing to train and wrote no plots).
enum Target { Startup, Step, Validation, CheckpointWrite, EpochEnd, RunEnd, kTargets };
const char* const kTargetName[kTargets] = {"start-up",         "step",      "validation",
                                           "checkpoint write", "epoch end", "run end"};
// How often each target is picked (of 11): the moments that write files get the larger share.
const int kTargetWeight[kTargets] = {1, 3, 2, 3, 1, 1};

// Mean length of each phase in the reference run (seconds).
struct Timing {
  double phase[kTargets] = {1, 0.5, 0.3, 0.3, 0.05, 0.3};
  double after_last_step = 0.05;  ///< the epoch's end before validation: losses, LR step
  int steps_per_epoch = 1;
};

bool isLastEpoch(const StampedEvent& e) {
  return e.ev.kind == TrainEvent::Kind::Epoch && e.ev.epoch.epoch + 1 == e.ev.epoch.epochs;
}

bool startedTraining(const StampedEvent& e) {
  return isPhase(e, TrainPhase::Warmup) || isPhase(e, TrainPhase::Training);
}

Timing timingOf(const std::vector<StampedEvent>& ev) {
  Timing t;
  double sum[kTargets] = {};
  int n[kTargets] = {};
  auto add = [&](Target k, double d) { sum[k] += d, ++n[k]; };
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    const double gap = ev[i + 1].t - ev[i].t;
    const StampedEvent& e = ev[i];
    if (startedTraining(e) && n[Startup] == 0) add(Startup, e.t);
    if (startedTraining(e) ||
        (e.ev.kind == TrainEvent::Kind::Step && e.ev.step.batch + 1 < e.ev.step.batches))
      add(Step, gap);  // from a step's start (phase or previous step's end) to its end
    if (e.ev.kind == TrainEvent::Kind::Step) t.steps_per_epoch = int(e.ev.step.batches);
    if (e.ev.kind == TrainEvent::Kind::Step && e.ev.step.batch + 1 == e.ev.step.batches)
      t.after_last_step = gap;
    if (isPhase(e, TrainPhase::Validating)) add(Validation, gap);
    if (isPhase(e, TrainPhase::Saving)) add(CheckpointWrite, gap);
    if (e.ev.kind == TrainEvent::Kind::Epoch) add(isLastEpoch(e) ? RunEnd : EpochEnd, gap);
  }
  for (int k = 0; k < kTargets; ++k)
    if (n[k]) t.phase[k] = sum[k] / n[k];
  return t;
}

// Where the child was when it died: after the last event it printed.
Target landedAt(const std::vector<StampedEvent>& ev) {
  if (std::none_of(ev.begin(), ev.end(), startedTraining)) return Startup;
  const TrainEvent& e = ev.back().ev;
  switch (e.kind) {
    case TrainEvent::Kind::Phase:
      if (e.phase == TrainPhase::Saving) return CheckpointWrite;
      if (e.phase == TrainPhase::Validating) return Validation;
      if (e.phase == TrainPhase::Warmup || e.phase == TrainPhase::Training) return Step;
      return EpochEnd;
    case TrainEvent::Kind::Step:  // after the last step: the epoch's losses, the LR step, before validation
      return e.step.batch + 1 < e.step.batches ? Step : EpochEnd;
    case TrainEvent::Kind::Epoch:  // after the last epoch's: the end-of-run plots
      return isLastEpoch(ev.back()) ? RunEnd : EpochEnd;
    default:  // the metrics line (validation done, before saving), the summary
      return EpochEnd;
  }
}

// Watches `weights` while the child saves: true once the `nth` file not there before has appeared (an
// atomic write's temporary file), or once the save is over (the epoch event) before that; false when the
// child ended.
bool waitForNewFile(EventChild& c, const QString& weights, int nth) {
  const QDir w(weights);
  const QStringList before = w.entryList(QDir::Files | QDir::Hidden);
  QStringList seen;
  const size_t events_before = c.events().size();
  while (c.poll(0)) {
    for (const QString& f : w.entryList(QDir::Files | QDir::Hidden))
      if (!before.contains(f) && !seen.contains(f)) seen << f;
    if (int(seen.size()) >= nth) return true;
    for (size_t i = events_before; i < c.events().size(); ++i)
      if (c.events()[i].ev.kind == TrainEvent::Kind::Epoch) return true;
    ::usleep(300);
  }
  return false;
}

int envInt(const char* name, int fallback) {
  const QByteArray v = qgetenv(name);
  return v.isEmpty() ? fallback : v.toInt();
}

}  // namespace

class TestKillStorm : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void killStormSingleProcess() {
    const int kills_wanted = envInt("YWB_KILL_STORM_KILLS", 10);
    const QByteArray seed_env = qgetenv("YWB_KILL_STORM_SEED");
    const uint64_t seed =
        seed_env.isEmpty()
            ? uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) ^ uint64_t(::getpid())
            : seed_env.toULongLong();
    qInfo("kill storm: seed %llu (YWB_KILL_STORM_SEED=%llu repeats this kill plan), %d kills",
          (unsigned long long)seed, (unsigned long long)seed, kills_wanted);
    std::mt19937_64 rng(seed);
    QElapsedTimer wall;
    wall.start();

    QTemporaryDir dir;
    const std::string data = ywb::test::tinyDataset(dir.path().toStdString(), {16, 8, 96, 5, 4});
    // A trained start (Ultralytics' checkpoint of this generator's shapes) so validation finds boxes and the
    // best epoch moves (epochs 1 and 2 of 3 here): best.safetensors is rewritten during the run, not only
    // once.
    const QString model = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";
    QVERIFY2(QFile::exists(model), qPrintable(model));
    auto freshArgs = [&](const QString& name) {
      return QStringList{"train",
                         QString::fromStdString("data=" + data),
                         "model=" + model,
                         "imgsz=64",
                         "batch=8",
                         "workers=2",
                         "epochs=3",
                         "amp=false",
                         "device=cpu",
                         "seed=1",
                         "project=" + dir.path(),
                         "name=" + name,
                         "exist_ok=true",
                         "--json"};
    };

    // The uninterrupted reference, timed event by event.
    const QString ref = dir.path() + "/ref";
    Timing timing;
    {
      EventChild c(YW_CLI_PATH, freshArgs("ref"));
      const int code = c.finish(600000);
      QVERIFY2(code == 0, qPrintable(c.errText()));
      timing = timingOf(c.events());
    }
    const std::set<std::string> names = tensorNames(loadCkpt(ref + "/weights/last.safetensors").file);
    QVERIFY(QFile::exists(ref + "/weights/best.safetensors"));
    qInfo(
        "reference run %.1f s; mean phase lengths: start-up %.2f s, step %.2f s, validation %.2f s, "
        "checkpoint write %.2f s, epoch end %.3f s, run end (plots) %.2f s",
        wall.elapsed() / 1000.0, timing.phase[Startup], timing.phase[Step], timing.phase[Validation],
        timing.phase[CheckpointWrite], timing.phase[EpochEnd], timing.phase[RunEnd]);

    int kills = 0, rounds = 0, resumes = 0, partial_files = 0, kills_leaving_partials = 0;
    int planned[kTargets] = {}, landed[kTargets] = {};
    std::discrete_distribution<int> pick(std::begin(kTargetWeight), std::end(kTargetWeight));
    std::uniform_real_distribution<double> frac(0.0, 1.0);
    while (kills < kills_wanted) {
      ++rounds;
      const QString name = QString("storm%1").arg(rounds), run = dir.path() + "/" + name;
      int announced = 0;  // epochs whose checkpoint the run reported as written
      for (int child = 0;; ++child) {
        QVERIFY2(child < 10 * kills_wanted + 10, "the storm makes no progress");
        // No args.yaml yet: the run never really started, so the user repeats the command; else resume.
        const bool fresh = !QFile::exists(run + "/args.yaml");
        if (!fresh) ++resumes;
        EventChild c(YW_CLI_PATH, fresh ? freshArgs(name) : QStringList{"train", "resume=" + run, "--json"});
        bool killed = false;
        Target target = Startup;
        if (kills < kills_wanted) {
          target = Target(pick(rng));
          // The epoch's end: 0 after its last step (losses, LR step; then validation), 1 as results.csv's new
          // version appears (after validation, before the checkpoint), 2 after its checkpoint (then the next
          // epoch).
          const int end_at = int(frac(rng) * 3);
          const double delay =
              frac(rng) * (target == EpochEnd && end_at == 0 ? timing.after_last_step : timing.phase[target]);
          const int nth_step = 1 + int(frac(rng) * timing.steps_per_epoch);
          int steps = 0;
          std::function<bool(const StampedEvent&)> opens;
          switch (target) {
            case Startup:
              opens = [](const StampedEvent&) { return true; };
              break;
            case Step:  // the start of step `nth_step` of the first epoch this child trains
              opens = [&](const StampedEvent& e) {
                const bool starts = startedTraining(e) || (e.ev.kind == TrainEvent::Kind::Step &&
                                                           e.ev.step.batch + 1 < e.ev.step.batches);
                return starts && ++steps == nth_step;
              };
              break;
            case Validation:
              opens = [](const StampedEvent& e) { return isPhase(e, TrainPhase::Validating); };
              break;
            case CheckpointWrite:
              opens = [](const StampedEvent& e) { return isPhase(e, TrainPhase::Saving); };
              break;
            case RunEnd:  // none when this child has no epoch left to train: it then finishes unharmed
              opens = isLastEpoch;
              break;
            default:
              opens = [end_at](const StampedEvent& e) {
                if (end_at == 0)
                  return e.ev.kind == TrainEvent::Kind::Step && e.ev.step.batch + 1 == e.ev.step.batches;
                if (end_at == 1) return isPhase(e, TrainPhase::Validating);
                return e.ev.kind == TrainEvent::Kind::Epoch;
              };
              break;
          }
          double t0 = 0;
          if (target != Startup) {
            const int at = c.waitFor(opens, 300);
            t0 = at >= 0 ? c.events()[size_t(at)].t : -1;
          }
          // Checkpoint writes: two in three kills strike as the 1st or 2nd file of the save appears in
          // weights/ (the checkpoint's temporary file, then the copy for best when it is a best epoch).
          const int nth_file =
              target == CheckpointWrite ? int(frac(rng) * 3) : target == EpochEnd && end_at == 1;
          if (t0 >= 0 && nth_file > 0) {
            if (waitForNewFile(c, target == EpochEnd ? run : run + "/weights", nth_file)) {
              c.signal(SIGKILL);
              killed = true;
            }
          } else if (t0 >= 0 && c.waitUntil(t0 + delay)) {
            c.signal(SIGKILL);
            killed = true;
          }
        }
        const int code = c.finish(300000);
        for (const StampedEvent& e : c.events())
          if (e.ev.kind == TrainEvent::Kind::Epoch) announced = std::max(announced, e.ev.epoch.epoch + 1);
        if (killed && code == -1) {
          ++kills;
          ++planned[target];
          const Target where = landedAt(c.events());
          ++landed[where];
          int partials = 0;
          const QString problem = checkWeights(run, names, announced, partials);
          partial_files += partials;
          kills_leaving_partials += partials > 0;
          QVERIFY2(problem.isEmpty(), qPrintable(QString("kill %1 (round %2, aimed at %3, landed in %4): %5")
                                                     .arg(kills)
                                                     .arg(rounds)
                                                     .arg(kTargetName[target])
                                                     .arg(kTargetName[where])
                                                     .arg(problem)));
          qInfo("kill %d/%d (round %d, child %d, %.0f s): aimed at %s, landed in %s%s; weights/ sound", kills,
                kills_wanted, rounds, child + 1, wall.elapsed() / 1000.0, kTargetName[target],
                kTargetName[where], partials ? ", a partial temporary file left" : "");
          continue;
        }
        QVERIFY2(code == 0, qPrintable(QString("round %1: ywb train %2 exited with %3:\n%4")
                                           .arg(rounds)
                                           .arg(fresh ? "(fresh)" : "resume=" + run)
                                           .arg(code)
                                           .arg(c.errText())));
        break;  // the round's run finished
      }
      // The finished run equals the uninterrupted one.
      QCOMPARE(csvWithoutTime(run + "/results.csv"), csvWithoutTime(ref + "/results.csv"));
      for (const char* f : {"last", "best"}) {
        const QString diff =
            sameCheckpoint(ref + "/weights/" + f + ".safetensors", run + "/weights/" + f + ".safetensors");
        QVERIFY2(diff.isEmpty(),
                 qPrintable(QString("round %1, %2.safetensors: %3").arg(rounds).arg(f).arg(diff)));
      }
      const QStringList left = QDir(run + "/weights").entryList(QDir::Files | QDir::Hidden);
      // previous.safetensors: the checkpoint before last, kept beside it (CheckpointFiles)
      QVERIFY2(left == QStringList({"best.safetensors", "last.safetensors", "previous.safetensors"}),
               qPrintable("weights/ of a finished run holds " + left.join(", ")));
      // train.log: every session's lines, appended (engine/train/run_log.h); besides these, only the plots
      // (plots=true, written atomically under Ultralytics' names; which train_batch pictures a killed run has
      // depends on where the kills landed), no temporary file; the best epoch's always (validated again at
      // the end when the last session resumed after it)
      const QRegularExpression plot(
          "^(labels\\.jpg|train_batch\\d+\\.jpg|val_batch\\d+_(labels|pred)\\.jpg|results\\.png|"
          "confusion_matrix(_normalized)?\\.png|Box(PR|F1|P|R)_curve\\.png)$");
      QStringList files, plots;
      for (const QString& f : QDir(run).entryList(QDir::Files | QDir::Hidden))
        (plot.match(f).hasMatch() ? plots : files) << f;
      QVERIFY2(files == QStringList({"args.yaml", "results.csv", "train.log"}),
               qPrintable("the run folder holds " + files.join(", ")));
      QVERIFY2(plots.contains("results.png") && plots.contains("confusion_matrix.png"),
               qPrintable("the finished run's plots: " + plots.join(", ")));
    }
    QString by_target, by_landing;
    for (int k = 0; k < kTargets; ++k) {
      by_target += QString("%1%2 %3").arg(k ? ", " : "").arg(kTargetName[k]).arg(planned[k]);
      by_landing += QString("%1%2 %3").arg(k ? ", " : "").arg(kTargetName[k]).arg(landed[k]);
    }
    qInfo(
        "kill storm: PASS - seed %llu, %d kills in %d rounds, %d resumes, %.1f s; aimed at: %s; landed in: "
        "%s; "
        "%d kills left %d partial temporary files in weights/; every finished run bit-identical to the "
        "uninterrupted one",
        (unsigned long long)seed, kills, rounds, resumes, wall.elapsed() / 1000.0, qPrintable(by_target),
        qPrintable(by_landing), kills_leaving_partials, partial_files);
  }
};

QTEST_GUILESS_MAIN(TestKillStorm)
#include "test_kill_storm.moc"
