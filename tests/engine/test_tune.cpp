// `ywb tune` (hyperparameter evolution, ywb/tune.h): the search space and its checks, the values each
// iteration draws, and real tunes on a tiny shapes set that record each run's fitness, keep the best weights,
// stop and continue an interrupted run from its checkpoint; the command line's errors and JSON events.
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_runner.h"
#include "support/error_of.h"
#include "support/tiny_run.h"
#include "ywb/results_csv.h"
#include "ywb/tune.h"

namespace fs = std::filesystem;
using namespace ywb;

namespace {

// A checkpoint Ultralytics trained on shapes of the same generator: short fine-tunes of it score above 0, so
// the fitness of a run is a real number to compare (../shared/fixtures/ultralytics/README.md).
const std::string kShapesPt = std::string(YW_SHARED_DIR) + "/fixtures/ultralytics/yolov8n-shapes.pt";

std::string write(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream(path) << text;
  return path;
}

double valueOf(const TrainArgs& a, const std::string& name) {
  return std::strtod(a.get(name).c_str(), nullptr);
}

// The highest mAP50-95 among a run's validated epochs, read from its results.csv (the column Ultralytics'
// best.pt is chosen by for detection).
double bestMap(const std::string& run_dir) {
  double best = 0;
  for (const auto& r : readResults(run_dir + "/results.csv"))
    if (r.validated()) best = std::max(best, r.map);
  return best;
}

const std::vector<TuneDimension> kSmallSpace = {
    {"lr0", 1e-4, 0.05}, {"momentum", 0.6, 0.98, 0.3}, {"hsv_v", 0.0, 0.9}, {"close_mosaic", 0, 10}};

TuneOptions tinyTune(const std::string& dir, int iterations, int epochs) {
  TuneOptions o;
  o.train = test::tinyRunArgs(test::tinyDataset(dir), dir + "/runs");
  o.train.model = kShapesPt;
  o.train.epochs = epochs;
  o.train.plots = false;
  o.space = kSmallSpace;
  o.iterations = iterations;
  return o;
}

// Stops the tune in iteration `at`, after that run's first epoch was saved.
struct StopInIteration : TuneObserver {
  StopInIteration(TuneControl& c, int stop_at) : control(c), at(stop_at) {}
  void onIterationStart(int it, int, const std::vector<double>&, const std::string&) override {
    current = it;
  }
  void onEpoch(const EpochMetrics& m) override {
    if (current == at && m.epoch == 0) control.requestStop();
  }
  TuneControl& control;
  int at, current = 0;
};

}  // namespace

class TestTune : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void defaultSpaceLiesInsideEveryArgumentsRange() {
    checkTuneSpace(defaultTuneSpace(), "default");  // throws if any bound leaves trainArgSpec's range
    for (const auto& d : defaultTuneSpace()) QVERIFY2(d.lo < d.hi, d.name.c_str());
    // Ultralytics' space minus copy_paste, which this trainer refuses with a reason.
    QCOMPARE(defaultTuneSpace().size(), size_t(24));
    QVERIFY(!ultralyticsArgumentNote("copy_paste").empty());
  }

  void aBadSpaceFileSaysWhatAndWhere() {
    QTemporaryDir dir;
    const auto err = [&](const std::string& text) {
      const std::string p = write(dir, "space.yaml", text);
      return qErrorOf([&] { loadTuneSpace(p); });
    };
    QVERIFY(err("lr00: [0.001, 0.1]\n").contains("'lr00' is not a training argument"));
    QVERIFY(err("optimizer: [0, 1]\n").contains("'optimizer' is not a number"));
    QVERIFY(err("lr0: [0.1, 0.001]\n").contains("not lo <= hi"));
    // The argument's own range, as trainArgSpec states it.
    const ArgSpec& deg = trainArgSpec("degrees");
    QVERIFY(err("degrees: [0, 200]\n")
                .contains(QString("leave its valid range [%1, %2]").arg(deg.min).arg(deg.max)));
    QVERIFY(err("lr0: 0.01\n").contains("space.yaml:1: lr0: expected [lo, hi] or [lo, hi, gain]"));
    QVERIFY(err("lr0: [a, 0.1]\n").contains("bounds and gain must be numbers"));
    QVERIFY(err("lr0: [0.001, 0.1, -1]\n").contains("negative"));
    QVERIFY(
        err("lr0: [0.001, 0.1\n").contains(QRegularExpression("space\\.yaml:[0-9]+:[0-9]+: broken YAML: ")));
    QVERIFY(err("").contains("expected a mapping"));
    QVERIFY(qErrorOf([] { loadTuneSpace("/nonexistent/space.yaml"); }).contains("/nonexistent/space.yaml"));
    const std::string good = write(dir, "good.yaml", "lr0: [0.001, 0.05]\nmomentum: [0.8, 0.95, 0.3]\n");
    const auto s = loadTuneSpace(good);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s[1].gain, 0.3);
  }

  void theFirstIterationTrainsTheArgumentsAsGiven() {
    TrainArgs base;
    base.lr0 = 0.02;
    base.degrees = 60;  // outside the space's [0, 45]: held to it
    const std::vector<TuneDimension> space = {{"lr0", 1e-5, 0.1}, {"degrees", 0, 45}};
    const std::vector<double> v = tuneCandidate(space, {}, base, 0, 1);
    QCOMPARE(v, (std::vector<double>{0.02, 45.0}));
  }

  void mutationsStayInTheSpaceAndAreNew() {
    TrainArgs base;
    const auto& space = defaultTuneSpace();
    std::vector<TuneRow> rows = {{0.3, tuneCandidate(space, {}, base, 7, 1)}};
    for (int it = 2; it <= 150; ++it) {
      const std::vector<double> v = tuneCandidate(space, rows, base, 7, it);
      QCOMPARE(v, tuneCandidate(space, rows, base, 7, it));  // same seed and rows: same values
      QVERIFY(v != tuneCandidate(space, rows, base, 8, it));
      QCOMPARE(v.size(), space.size());
      for (size_t i = 0; i < v.size(); ++i) {
        QVERIFY2(v[i] >= space[i].lo && v[i] <= space[i].hi, space[i].name.c_str());
        char text[32];  // 5 significant digits; whole numbers for integer arguments
        std::snprintf(text, sizeof text, "%.5g", v[i]);
        QCOMPARE(v[i], std::strtod(text, nullptr));
        if (trainArgSpec(space[i].name).type == ArgType::Int) QCOMPARE(v[i], std::round(v[i]));
      }
      for (const auto& r : rows) QVERIFY(r.values != v);  // every iteration tries something new
      rows.push_back({std::fmod(0.37 * it, 1.0), v});
    }
    // Zeros (degrees, shear, mixup, ... by default) are not stuck at zero: some iterations moved them.
    const size_t degrees = 12;
    QCOMPARE(space[degrees].name, std::string("degrees"));
    QVERIFY(std::any_of(rows.begin(), rows.end(), [&](const TuneRow& r) { return r.values[degrees] > 0; }));
  }

  void parentsAreDrawnFromTheFittestFive() {
    // With gain 0 no value can change, so a candidate is its parent: the draw itself is seen. Rows
    // (fitness, value): the best five are 0.9 (3), 0.5 (2), 0.3 (6), 0.2 (5), 0.1 (1); weights are fitness
    // minus the worst of them (0.1): 0.8, 0.4, 0.2, 0.1, 0 of 1.5. Values 4 and 7 are not among the five.
    const std::vector<TuneDimension> space = {{"degrees", 0, 10, 0.0}};
    const std::vector<TuneRow> rows = {{0.1, {1}}, {0.5, {2}}, {0.9, {3}}, {0.0, {4}},
                                       {0.2, {5}}, {0.3, {6}}, {0.05, {7}}};
    std::map<double, int> seen;
    const int n = 3000;
    for (int it = 0; it < n; ++it) ++seen[tuneCandidate(space, rows, TrainArgs{}, 11, it + 2)[0]];
    const std::map<double, double> p = {{3, 0.8 / 1.5}, {2, 0.4 / 1.5}, {6, 0.2 / 1.5}, {5, 0.1 / 1.5}};
    for (const auto& [value, prob] : p) {
      const double sd = std::sqrt(n * prob * (1 - prob));
      QVERIFY2(std::abs(seen[value] - n * prob) < 4 * sd,
               qPrintable(QString("value %1: %2").arg(value).arg(seen[value])));
    }
    QCOMPARE(seen[4] + seen[7] + seen[1], 0);
  }

  void aTuneRecordsEachRunsFitnessAndKeepsTheBestWeights() {
    QTemporaryDir dir;
    const TuneOptions o = tinyTune(dir.path().toStdString(), 3, 1);
    const TuneSummary s = runTune(o);
    QCOMPARE(s.iterations_done, 3);
    QCOMPARE(s.dir, o.train.project + "/tune");
    const std::vector<TuneRow> rows = readTuneResults(s.dir + "/" + tuneResultsFileName(), kSmallSpace);
    QCOMPARE(rows.size(), size_t(3));
    // Iteration 1 trains the arguments as given (TrainArgs' defaults here: Ultralytics' lr0 0.01, momentum
    // 0.937, hsv_v 0.4, close_mosaic 10).
    QCOMPARE(rows[0].values, (std::vector<double>{0.01, 0.937, 0.4, 10}));
    int best = 0;
    for (int i = 0; i < 3; ++i) {
      const std::string run = s.dir + "/iter" + std::to_string(i + 1);
      QVERIFY2(std::abs(rows[size_t(i)].fitness - bestMap(run)) < 1e-12, run.c_str());
      QVERIFY(rows[size_t(i)].fitness > 0.05);  // a fine-tune of a shapes detector detects shapes
      TrainArgs trained;                        // each run trained with its row's values
      loadTrainArgsYaml(run + "/args.yaml", trained);
      for (size_t k = 0; k < kSmallSpace.size(); ++k)
        QCOMPARE(valueOf(trained, kSmallSpace[k].name), rows[size_t(i)].values[k]);
      if (rows[size_t(i)].fitness > rows[size_t(best)].fitness) best = i;
    }
    QCOMPARE(s.best_iteration, best + 1);
    for (int i = 0; i < 3; ++i)  // only the best run keeps weights
      QCOMPARE(fs::exists(s.dir + "/iter" + std::to_string(i + 1) + "/weights/best.safetensors"), i == best);
    TrainArgs cfg;  // best_hyperparameters.yaml is a cfg= file: only known arguments, the best row's values
    QVERIFY(loadTrainArgsYaml(s.dir + "/" + tuneBestFileName(), cfg).empty());
    for (size_t k = 0; k < kSmallSpace.size(); ++k)
      QCOMPARE(valueOf(cfg, kSmallSpace[k].name), rows[size_t(best)].values[k]);
    QVERIFY(!fs::exists(s.dir + "/tune_fitness.png"));  // plots=false
    TrainArgs wrong;                                    // a tune folder is not a run to resume
    wrong.resume = s.dir;
    QVERIFY(qErrorOf([&] {
              resolveTrainArgs(wrong);
            }).contains("is a tune folder, not a run: `ywb tune resume=" + QString::fromStdString(s.dir)));
    QVERIFY(qErrorOf([&] { Trainer(wrong).run(); }).contains("is a tune folder"));
    QVERIFY(!fs::exists(s.dir + "/results.csv"));
    // exist_ok reuses a folder, never another tune's rows
    TuneOptions reuse = o;
    reuse.train.exist_ok = true;
    QVERIFY(qErrorOf([&] {
              runTune(reuse);
            }).contains("holds a tune already: resume=" + QString::fromStdString(s.dir)));
  }

  void aStoppedTuneContinuesItsInterruptedRun() {
    QTemporaryDir dir;
    const TuneOptions o = tinyTune(dir.path().toStdString(), 3, 2);
    TuneControl control;
    StopInIteration stopper(control, 2);
    const TuneSummary first = runTune(o, &stopper, &control);
    QVERIFY(first.stopped);
    QCOMPARE(first.iterations_done, 1);
    const std::string iter2 = first.dir + "/iter2";
    QVERIFY(fs::exists(iter2 + "/weights/last.safetensors"));
    const std::vector<ResultsRow> before = readResults(iter2 + "/results.csv");
    QCOMPARE(before.size(), size_t(1));
    TrainArgs recorded;
    loadTrainArgsYaml(iter2 + "/args.yaml", recorded);

    TuneOptions again;
    again.resume = first.dir;
    QVERIFY(qErrorOf([&] {
              TuneOptions bad = again;
              bad.resume = dir.path().toStdString();
              runTune(bad);
            }).contains("not a tune folder"));
    const TuneSummary s = runTune(again);
    QVERIFY(!s.stopped);
    QCOMPARE(s.iterations_done, 3);
    const std::vector<ResultsRow> after = readResults(iter2 + "/results.csv");
    QCOMPARE(after.size(), size_t(2));  // continued from its checkpoint: epoch 1 kept, epoch 2 added
    QCOMPARE(after[0].map, before[0].map);
    QCOMPARE(after[0].time, before[0].time);
    const std::vector<TuneRow> rows = readTuneResults(s.dir + "/" + tuneResultsFileName(), kSmallSpace);
    for (size_t k = 0; k < kSmallSpace.size(); ++k)
      QCOMPARE(rows[1].values[k], valueOf(recorded, kSmallSpace[k].name));
    QVERIFY(!fs::exists(s.dir + "/iter4"));
  }

  void theCommandLineTunesAndSaysWhatIsWrong() {
    QTemporaryDir dir;
    const std::string data = test::tinyDataset(dir.path().toStdString());
    const QString project = dir.filePath("runs");
    CliResult r = ywbRun({"tune", "data=" + QString::fromStdString(data), "iterations=0"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("iterations=0: expected a whole number of at least 1"), r.err.constData());
    r = ywbRun({"tune", "data=x", "lr00=0.1"});
    QVERIFY(r.err.contains("lr0"));  // the nearest name
    r = ywbRun({"tune", "resume=" + project, "epochs=3"});
    QVERIFY2(r.err.contains("only iterations= may change"), r.err.constData());
    const std::string space = write(dir, "space.yaml", "lr0: [0.001, 0.02]\nfliplr: [0, 1]\n");
    r = ywbRun({"tune", "data=" + QString::fromStdString(data), "model=" + QString::fromStdString(kShapesPt),
                "project=" + project, "imgsz=96", "epochs=1", "batch=8", "workers=2", "device=cpu",
                "iterations=2", "space=" + QString::fromStdString(space), "--json"});
    QCOMPARE(r.code, 0);
    QStringList events;
    QJsonObject finished;
    QString pinned;
    for (const QByteArray& line : r.out.split('\n')) {
      const QJsonObject j = QJsonDocument::fromJson(line).object();
      if (j["event"].toString().startsWith("tune")) events << j["event"].toString();
      if (j["event"] == "tune_finished") finished = j;
      if (j["event"] == "log" && j["line"].toString().startsWith("tune: the AMP check chose"))
        pinned = j["line"].toString();
    }
    // amp=true (the default) on a CPU: iteration 1's AMP check chose bf16 or fp32 by timing; iteration 2 and
    // the tune's args.yaml keep that choice instead of timing again.
    QVERIFY2(!pinned.isEmpty(), r.out.constData());
    TrainArgs kept, second;
    loadTrainArgsYaml(project.toStdString() + "/tune/args.yaml", kept);
    loadTrainArgsYaml(project.toStdString() + "/tune/iter2/args.yaml", second);
    QVERIFY(kept.amp ? kept.amp_dtype == "bf16" && pinned.contains("amp_dtype=bf16")
                     : pinned.contains("amp=false"));
    QCOMPARE(second.amp, kept.amp);
    QCOMPARE(second.amp_dtype, kept.amp_dtype);
    QCOMPARE(events, (QStringList{"tune_start", "tune_iteration_start", "tune_iteration",
                                  "tune_iteration_start", "tune_iteration", "tune_finished"}));
    QCOMPARE(finished["iterations_done"].toInt(), 2);
    QCOMPARE(finished["best_values"].toObject().keys(), (QStringList{"fliplr", "lr0"}));
    QVERIFY(fs::exists(project.toStdString() + "/tune/tune_fitness.png"));
  }
};

QTEST_GUILESS_MAIN(TestTune)
#include "test_tune.moc"
