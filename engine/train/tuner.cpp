// `ywb tune` (ywb/tune.h): one training run per iteration in <tune folder>/iterN, its fitness read back from
// its results.csv, the folder's files updated after each, only the best iteration's weights kept.
#include <chrono>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/remove_tree.h"
#include "eval/metric_plots.h"
#include "eval/plot_canvas.h"
#include "train/run_dir.h"
#include "train/tune_files.h"
#include "ywb/metrics.h"
#include "ywb/results_csv.h"
#include "ywb/run_files.h"
#include "ywb/trainer.h"
#include "ywb/tune.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

std::string iterationDir(const std::string& dir, int iteration) {
  return (fs::path(dir) / ("iter" + std::to_string(iteration))).string();
}

// The fitness the trainer kept `best` for: the best validated row of the run's results.csv (the one rule,
// bestResultsRow), 0 when none was validated.
double runFitness(const std::string& run_dir) {
  const std::string csv = run_files::path(run_dir, run_files::kResults);
  if (!fs::exists(csv)) return 0;
  const std::vector<ResultsRow> rows = readResults(csv);
  const int b = bestResultsRow(rows);
  if (b < 0) return 0;
  const ResultsRow& r = rows[size_t(b)];
  return modelFitness(r.precision, r.recall, r.map50, r.map);
}

int bestRow(const std::vector<TuneRow>& rows) {
  int b = -1;
  for (size_t i = 0; i < rows.size(); ++i)
    if (b < 0 || rows[i].fitness > rows[size_t(b)].fitness) b = int(i);
  return b;
}

// Only the best iteration keeps its weights (a tune of 300 runs would otherwise keep 600 checkpoints).
void removeWeights(const std::string& run_dir, TuneObserver* observer) {
  const fs::path w = fs::path(run_files::path(run_dir, run_files::kWeights));
  if (!fs::exists(w)) return;
  if (const std::string err = removeTree(w.string()); !err.empty() && observer)
    observer->onLog("tune: could not remove a superseded run's weights: " + err);
}

// tune_fitness.png: each iteration's fitness and the best so far.
void writeFitnessPlot(const std::string& dir, const std::vector<TuneRow>& rows) {
  std::vector<double> xs, ys, best;
  for (size_t i = 0; i < rows.size(); ++i) {
    xs.push_back(double(i + 1));
    ys.push_back(rows[i].fitness);
    best.push_back(best.empty() ? ys.back() : std::max(best.back(), ys.back()));
  }
  cv::Mat img(480, 640, CV_8UC3, cv::Scalar::all(255));
  plot::Range x = xs.size() > 1 ? plot::valueRange({xs}, 0.03) : plot::Range{0, 2};
  x.min_step = 1;
  plot::Chart chart(img, {0, 0, img.cols, img.rows}, x, plot::valueRange({ys}),
                    "Fitness (best epoch's mAP50-95) by iteration", "iteration", "");
  chart.line(xs, ys, plot::cycleColour(0), 1, /*dots=*/true);
  chart.line(xs, best, plot::cycleColour(1), 2);
  chart.legend({{"fitness", plot::cycleColour(0)}, {"best so far", plot::cycleColour(1)}});
  writePlotImage(img, dir, "tune_fitness");
}

// Sets the space's values into `args` as the command line would (range-checked by TrainArgs::set).
void applyValues(TrainArgs& args, const std::vector<TuneDimension>& space,
                 const std::vector<double>& values) {
  for (size_t i = 0; i < space.size(); ++i) args.set(space[i].name, tuneValueText(values[i]));
}

// The values an interrupted iteration trains with: those its args.yaml recorded.
std::vector<double> recordedValues(const std::string& run_dir, const std::vector<TuneDimension>& space) {
  TrainArgs a;
  loadTrainArgsYaml(run_files::path(run_dir, run_files::kArgs), a);
  return spaceValues(a, space);
}

// The AMP check decides a run's precision by timing it, and where the two precisions run close it may
// choose differently from one run to the next: the first run's choice is kept for the rest, so that runs
// differ only in the searched values. Returns the line that says so ("" when nothing was left to pin).
std::string pinPrecision(TrainArgs& base, const std::string& amp_note) {
  if (!base.amp || base.amp_dtype != "auto") return {};
  if (amp_note == "bf16" || amp_note == "fp16") {
    base.amp_dtype = amp_note;
  } else if (amp_note.rfind("off", 0) == 0) {
    base.amp = false;
  } else {
    return {};
  }
  return "tune: the AMP check chose " + (base.amp ? amp_note : "fp32, AMP " + amp_note) +
         "; every later iteration trains in it (" + (base.amp ? "amp_dtype=" + amp_note : "amp=false") +
         "), so that runs differ only in the searched values";
}

}  // namespace

bool isTuneFolder(const std::string& dir) {
  return fs::is_regular_file(fs::path(dir) / tuneResultsFileName());
}

int tuneIterationsPlanned(const std::string& dir) {
  return readTuneSettings((fs::path(dir) / tuneSettingsFileName()).string()).iterations;
}

std::string bestTuneRun(const std::string& dir) {
  const TuneSettings settings = readTuneSettings((fs::path(dir) / tuneSettingsFileName()).string());
  const std::string csv = (fs::path(dir) / tuneResultsFileName()).string();
  const int best = bestRow(readTuneResults(csv, settings.space));
  if (best < 0) fail(csv, ": no iteration has finished yet");
  return iterationDir(dir, best + 1);
}

void TuneControl::requestStop() {
  stop_ = true;
  if (Trainer* t = trainer_.load()) t->requestStop();
}

void TuneControl::setPaused(bool paused) {
  paused_ = paused;
  if (Trainer* t = trainer_.load()) t->setPaused(paused);
}

void TuneControl::setRun(Trainer* trainer) {
  trainer_ = trainer;
  if (trainer && paused_) trainer->setPaused(true);
  if (trainer && stop_) trainer->requestStop();
}

TuneSummary runTune(const TuneOptions& options, TuneObserver* observer, TuneControl* control) {
  TuneSummary sum;
  TrainArgs base = options.train;
  TuneSettings settings;
  std::string dir;
  if (!options.resume.empty()) {
    dir = options.resume;
    const std::string settings_file = (fs::path(dir) / tuneSettingsFileName()).string();
    if (!fs::exists(settings_file))
      fail("resume=", dir, ": not a tune folder (no ", tuneSettingsFileName(), " in it)");
    settings = readTuneSettings(settings_file);
    base = TrainArgs{};
    loadTrainArgsYaml(run_files::path(dir, run_files::kArgs), base);
    if (options.iterations > 0) settings.iterations = options.iterations;
  } else {
    checkTuneSpace(options.space, "the search space");
    base.validate();
    settings.space = options.space;
    settings.iterations = options.iterations > 0 ? options.iterations : 300;
    settings.seed = uint64_t(base.seed);
    dir = makeRunDir(base.project, options.name.empty() ? "tune" : options.name, base.exist_ok,
                     /*weights_folder=*/false);
    // exist_ok reuses a folder, not a tune: its rows were judged with its own space and arguments.
    if (fs::exists(fs::path(dir) / tuneSettingsFileName()))
      fail(dir, " holds a tune already: resume=", dir, " continues it; another name= starts a new one");
    writeFileAtomic(run_files::path(dir, run_files::kArgs), trainArgsToYaml(base));
  }
  writeTuneSettings((fs::path(dir) / tuneSettingsFileName()).string(), settings.space, settings.iterations,
                    settings.seed);
  const std::string csv = (fs::path(dir) / tuneResultsFileName()).string();
  std::vector<TuneRow> rows = fs::exists(csv) ? readTuneResults(csv, settings.space) : std::vector<TuneRow>{};
  sum.dir = dir;
  sum.space = settings.space;
  if (observer) observer->onTuneStart(dir, settings.space, int(rows.size()), settings.iterations);
  for (int it = int(rows.size()) + 1; it <= settings.iterations; ++it) {
    if (control && control->stopRequested()) {
      sum.stopped = true;
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    TrainArgs a = base;
    const std::string run_dir = iterationDir(dir, it);
    TuneRow row;
    // Stopped or killed in this iteration (its args.yaml is written): continue it.
    if (fs::exists(run_files::path(run_dir, run_files::kArgs))) {
      row.values = recordedValues(run_dir, settings.space);
      a.resume = run_dir;
    } else {
      row.values = tuneCandidate(settings.space, rows, base, settings.seed, it);
      if (const std::string err = fs::exists(run_dir) ? removeTree(run_dir) : "";
          !err.empty())  // killed before its args.yaml was written: nothing in it to keep
        fail("tune: cannot clear ", run_dir, " to start iteration ", it, ": ", err);
    }
    applyValues(a, settings.space, row.values);
    a.project = dir;
    a.name = "iter" + std::to_string(it);
    a.exist_ok = true;
    if (observer) observer->onIterationStart(it, settings.iterations, row.values, run_dir);
    TuneIteration report;
    try {
      Trainer trainer(a);
      trainer.setObserver(observer);
      if (control) control->setRun(&trainer);
      const TrainSummary s = trainer.run();
      if (control) control->setRun(nullptr);
      if (s.stopped) {
        sum.stopped = true;
        break;
      }
      if (const std::string pinned = pinPrecision(base, s.amp); !pinned.empty()) {
        writeFileAtomic(run_files::path(dir, run_files::kArgs), trainArgsToYaml(base));
        if (observer) observer->onLog(pinned);
      }
    } catch (const Error& e) {
      if (control) control->setRun(nullptr);
      if (it == 1 && rows.empty())
        fail("tune iteration 1 (the arguments as given) failed, so no mutation of them can be judged: ",
             e.what());
      report.error = e.what();
    }
    row.fitness = report.error.empty() ? runFitness(run_dir) : 0.0;
    appendTuneRow(csv, settings.space, row);
    rows.push_back(row);
    const int best = bestRow(rows);
    writeTuneBest((fs::path(dir) / tuneBestFileName()).string(), settings.space, rows[size_t(best)], best + 1,
                  int(rows.size()));
    if (best == int(rows.size()) - 1) {  // a new best: the earlier runs' weights go
      for (int k = 1; k < it; ++k) removeWeights(iterationDir(dir, k), observer);
    } else {
      removeWeights(run_dir, observer);
    }
    if (base.plots) writeFitnessPlot(dir, rows);
    report.iteration = it;
    report.iterations = settings.iterations;
    report.run_dir = run_dir;
    report.row = row;
    report.best_iteration = best + 1;
    report.best_fitness = rows[size_t(best)].fitness;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (observer) observer->onIteration(report);
  }
  sum.iterations_done = int(rows.size());
  if (const int b = bestRow(rows); b >= 0) {
    sum.best_iteration = b + 1;
    sum.best_fitness = rows[size_t(b)].fitness;
    sum.best_values = rows[size_t(b)].values;
  }
  return sum;
}

}  // namespace ywb
