#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "cli/train_progress.h"
#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "core/error.h"
#include "ywb/dist.h"
#include "ywb/tune.h"

namespace ywb::cli {
namespace {

TuneControl* g_control = nullptr;

extern "C" void onTuneInterrupt(int sig) {
  // First Ctrl-C or SIGTERM: the running iteration finishes its step and saves `last`; `ywb tune
  // resume=<tune folder>` continues it. A second one kills the process.
  if (g_control) g_control->requestStop();
  std::signal(sig, SIG_DFL);
}

std::string valuesText(const std::vector<TuneDimension>& space, const std::vector<double>& values) {
  std::string t;
  for (size_t i = 0; i < space.size() && i < values.size(); ++i) {
    char v[32];
    std::snprintf(v, sizeof v, "%.5g", values[i]);
    t += (t.empty() ? "" : " ") + space[i].name + "=" + v;
  }
  return t;
}

nlohmann::json valuesJson(const std::vector<TuneDimension>& space, const std::vector<double>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < space.size() && i < values.size(); ++i) j[space[i].name] = values[i];
  return j;
}

// The runs' own events as `ywb train` shows them, and a line (or JSON event) per iteration.
class TuneProgress : public TuneObserver {
 public:
  explicit TuneProgress(bool json) : json_(json), train_(json) {}

  void onTuneStart(const std::string& dir, const std::vector<TuneDimension>& s, int done, int n) override {
    space = s;
    if (json_) {
      nlohmann::json j = {
          {"event", "tune_start"}, {"dir", dir}, {"iterations_done", done}, {"iterations", n}};
      for (const auto& d : s) j["space"][d.name] = {d.lo, d.hi, d.gain};
      std::cout << j.dump() << std::endl;
      return;
    }
    std::cout << "tune: " << (done > 0 ? "continuing " : "") << dir << ": " << n << " iterations"
              << (done > 0 ? ", " + std::to_string(done) + " done" : "") << "; " << s.size()
              << " arguments searched" << std::endl;
  }

  void onPhase(TrainPhase p, const std::string& d) override { train_.onPhase(p, d); }
  void onStep(const StepMetrics& m) override { train_.onStep(m); }
  void onEpoch(const EpochMetrics& m) override { train_.onEpoch(m); }
  void onLog(const std::string& l) override { train_.onLog(l); }
  void onFinished(const TrainSummary& s) override { train_.onFinished(s); }

  void onIterationStart(int it, int n, const std::vector<double>& values, const std::string& dir) override {
    if (json_) {
      std::cout << nlohmann::json{{"event", "tune_iteration_start"},
                                  {"iteration", it},
                                  {"iterations", n},
                                  {"run_dir", dir},
                                  {"values", valuesJson(space, values)}}
                       .dump()
                << std::endl;
      return;
    }
    std::cout << "\ntune: iteration " << it << "/" << n << " in " << dir << "\n      "
              << valuesText(space, values) << std::endl;
  }
  void onIteration(const TuneIteration& r) override {
    if (json_) {
      std::cout << nlohmann::json{{"event", "tune_iteration"},
                                  {"iteration", r.iteration},
                                  {"iterations", r.iterations},
                                  {"run_dir", r.run_dir},
                                  {"fitness", r.row.fitness},
                                  {"values", valuesJson(space, r.row.values)},
                                  {"error", r.error},
                                  {"best_iteration", r.best_iteration},
                                  {"best_fitness", r.best_fitness},
                                  {"seconds", r.seconds}}
                       .dump()
                << std::endl;
      return;
    }
    char line[200];
    std::snprintf(line, sizeof line,
                  "tune: iteration %d/%d: fitness %.5f in %.1f s; best %.5f (iteration %d)", r.iteration,
                  r.iterations, r.row.fitness, r.seconds, r.best_fitness, r.best_iteration);
    std::cout << line << std::endl;
    if (!r.error.empty())
      std::cout << "tune: iteration " << r.iteration << " failed (fitness 0): " << r.error << "\n";
  }

 private:
  std::vector<TuneDimension> space;
  bool json_;
  TrainProgress train_;
};

int runTuneVerb(const Args& a) {
  TuneOptions o;
  if (a.has("cfg")) {
    for (const auto& k : loadTrainArgsYaml(a.str("cfg"), o.train))
      std::cerr << "ywb: note: " << a.str("cfg") << ": ignoring '" << k << "'\n";
  }
  for (const auto& [key, value] : a.values) {
    if (key == "cfg") continue;
    if (key == "iterations") {
      o.iterations = int(a.integer(key, 0));
      if (o.iterations < 1) fail("iterations=", value, ": expected a whole number of at least 1");
    } else if (key == "space") {
      o.space = loadTuneSpace(value);
    } else if (key == "name") {
      o.name = value;
    } else if (key == "resume") {
      o.resume = value;
    } else if (!o.train.set(key, value)) {
      std::vector<std::string> known = {"cfg", "iterations", "space"};
      for (const auto& s : trainArgSpecs()) known.push_back(s.name);
      a.requireKnown(known);
    }
  }
  if (!o.resume.empty() && a.values.size() > size_t(1 + a.has("iterations")))
    fail("resume=", o.resume,
         " continues a tune with its own arguments and space; only iterations= may change");
  if (o.resume.empty()) {
    if (localRanksRequested(o.train.device, o.train.world) > 1)
      fail("ywb tune trains one process per run: give one device (device=0 or device=cpu) and world=1");
    resolveWeightsArg(o.train.model, a.json);
    resolveWeightsArg(o.train.pretrained, a.json);
  }
  TuneProgress progress(a.json);
  TuneControl control;
  g_control = &control;
  std::signal(SIGINT, onTuneInterrupt);
  std::signal(SIGTERM, onTuneInterrupt);
  const TuneSummary s = ywb::runTune(o, &progress, &control);
  g_control = nullptr;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (a.json) {
    std::cout << nlohmann::json{{"event", "tune_finished"},
                                {"dir", s.dir},
                                {"iterations_done", s.iterations_done},
                                {"best_iteration", s.best_iteration},
                                {"best_fitness", s.best_fitness},
                                {"best_values", valuesJson(s.space, s.best_values)},
                                {"stopped", s.stopped}}
                     .dump()
              << std::endl;
  } else {
    std::cout << "\ntune: " << s.iterations_done << " iterations in " << s.dir << "; best: iteration "
              << s.best_iteration << ", fitness " << s.best_fitness << "\n      "
              << valuesText(s.space, s.best_values) << "\n      train with them: ywb train cfg=" << s.dir
              << "/" << tuneBestFileName() << " data=... model=...\n";
    if (s.stopped) std::cout << "tune: stopped; `ywb tune resume=" << s.dir << "` continues it\n";
  }
  return s.stopped ? 130 : 0;
}

std::string tuneHelp() {
  return "data=DATA.yaml [model=yolov8n.yaml] [epochs=N] [iterations=300] [space=SPACE.yaml] [name=tune]\n"
         "          [any `ywb train` argument] | resume=TUNE_FOLDER [iterations=N] [--json]\n\n"
         "Hyperparameter evolution, as Ultralytics' model.tune: one training run per iteration, each with "
         "the\n"
         "search space's arguments mutated from the best runs so far (iteration 1 trains the arguments as\n"
         "given). Writes runs/detect/<name>/: iterN/ (each run; only the best keeps its weights),\n"
         "tune_results.csv (fitness = the run's best mAP50-95, then the values), best_hyperparameters.yaml\n"
         "(train with it: ywb train cfg=.../best_hyperparameters.yaml) and tune_fitness.png. Ctrl-C stops\n"
         "after the current step; resume=TUNE_FOLDER continues, the interrupted run from its checkpoint.\n\n"
         "space=SPACE.yaml: one `argument: [lo, hi]` or `argument: [lo, hi, gain]` per line, numeric "
         "training\n"
         "arguments within their valid range. The default space:\n" +
         [] {
           std::string t;
           for (const auto& d : defaultTuneSpace()) {
             char line[80];
             std::snprintf(line, sizeof line, "    %s: [%g, %g%s]\n", d.name.c_str(), d.lo, d.hi,
                           d.gain != 1.0 ? (", " + std::to_string(d.gain).substr(0, 3)).c_str() : "");
             t += line;
           }
           return t;
         }();
}

const RegisterVerb reg{
    {"tune", "evolve training hyperparameters over many short runs (resumable)", tuneHelp(), runTuneVerb}};

}  // namespace
}  // namespace ywb::cli
