// Hyperparameter evolution (`ywb tune`, Ultralytics' model.tune): training runs one after another, each with
// the arguments of a search space mutated from the best runs so far; every run's fitness (ywb/metrics.h's
// modelFitness of its best epoch) and values go to tune_results.csv, the best so far to
// best_hyperparameters.yaml (a cfg= file for `ywb train`). A tune folder continues where it stopped.
// Thread rules: runTune() blocks and trains on the calling thread; TuneControl::stop may be set from any
// thread (or a signal handler) through TuneControl; observers are called on the tuning thread.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "ywb/train_args.h"
#include "ywb/train_events.h"

namespace ywb {

/// One tuned argument: a Double or Int training argument, searched within [lo, hi] (inside its valid range,
/// trainArgSpec), mutated with `gain` times the standard step (Ultralytics' third number of a space entry).
struct TuneDimension {
  std::string name;
  double lo = 0, hi = 0;
  double gain = 1.0;
};

/// The default search space: Ultralytics' published one, less the arguments this trainer does not take
/// (copy_paste).
const std::vector<TuneDimension>& defaultTuneSpace();
/// Reads a search space from YAML: `name: [lo, hi]` or `name: [lo, hi, gain]` per line. Throws ywb::Error
/// naming the file, line and rule for an unknown or non-numeric argument, lo > hi, bounds outside the
/// argument's valid range, or a negative gain.
std::vector<TuneDimension> loadTuneSpace(const std::string& path);
/// The same checks for a space built in code; `source` names it in messages.
void checkTuneSpace(const std::vector<TuneDimension>& space, const std::string& source);

/// One finished iteration: its fitness and the values of the space's arguments, in space order.
struct TuneRow {
  double fitness = 0;
  std::vector<double> values;
};

/// The values of iteration `iteration` (1-based), drawn from the rows before it (fitness and values in space
/// order): iteration 1 (no rows) takes `base`'s own values, clamped into the space; later ones mutate a
/// parent picked among the best five rows with a chance growing with its fitness. Each value changes with
/// probability 0.8 by a factor 1 + gain * 0.2 * N(0,1) * u held to [0.3, 3], u one U(0,1) per draw (a zero
/// value by that change times a tenth of its range), until at least one differs; then clamped into [lo, hi],
/// rounded to 5 significant digits (integers to whole numbers). The same seed, iteration and rows give the
/// same values.
std::vector<double> tuneCandidate(const std::vector<TuneDimension>& space, const std::vector<TuneRow>& rows,
                                  const TrainArgs& base, uint64_t seed, int iteration);

struct TuneOptions {
  /// The runs' arguments apart from the space's (data, model, epochs, imgsz, device, ...); the space's own
  /// values here are iteration 1's. `train.project` holds the tune folder, `name` names it (auto-incremented:
  /// tune, tune2, ... unless train.exist_ok); each iteration trains in <tune folder>/iterN.
  TrainArgs train;
  std::string name = "tune";
  /// Iterations in all (0: 300, or a resumed tune's own count).
  int iterations = 0;
  std::vector<TuneDimension> space = defaultTuneSpace();
  /// A tune folder to continue: its settings (tune.yaml, args.yaml) are used, `iterations` may grow. An
  /// iteration that was stopped or killed mid-run is resumed from its last checkpoint.
  std::string resume;
};

/// What a tune reports.
struct TuneIteration {
  int iteration = 0, iterations = 0;  ///< 1-based
  std::string run_dir;
  TuneRow row;
  std::string error;       ///< the run failed (fitness recorded as 0)
  int best_iteration = 0;  ///< 1-based
  double best_fitness = 0;
  double seconds = 0;
};

class TuneObserver : public TrainObserver {
 public:
  /// Once, before the first iteration of this call: the folder, its space, iterations done and in all.
  virtual void onTuneStart(const std::string& /*dir*/, const std::vector<TuneDimension>& /*space*/,
                           int /*done*/, int /*iterations*/) {}
  /// Before an iteration's run starts: its values (space order) and its folder.
  virtual void onIterationStart(int /*iteration*/, int /*iterations*/, const std::vector<double>& /*values*/,
                                const std::string& /*run_dir*/) {}
  virtual void onIteration(const TuneIteration& /*it*/) {}
};

struct TuneSummary {
  std::string dir;
  std::vector<TuneDimension> space;
  int iterations_done = 0;  ///< rows in tune_results.csv
  int best_iteration = 0;   ///< 1-based; 0 when none
  double best_fitness = 0;
  std::vector<double> best_values;
  bool stopped = false;
};

class Trainer;

/// Stops a tune: the iteration running finishes its step and saves its checkpoint (a later resume continues
/// it), and no further iteration starts.
class TuneControl {
 public:
  /// Safe from any thread and from a signal handler (atomic flags only).
  void requestStop();
  bool stopRequested() const { return stop_.load(); }
  /// Pauses the run in progress before its next step (and the next run, until unpaused).
  void setPaused(bool paused);
  /// Used by runTune: the run in progress (nullptr between runs).
  void setRun(Trainer* trainer);

 private:
  std::atomic<bool> stop_{false}, paused_{false};
  std::atomic<Trainer*> trainer_{nullptr};
};

/// Runs (or continues) a tune. Throws ywb::Error when the first iteration (the base arguments) fails or the
/// tune folder cannot be written; a later iteration that fails is recorded with fitness 0 and its error.
TuneSummary runTune(const TuneOptions& options, TuneObserver* observer = nullptr,
                    TuneControl* control = nullptr);

/// File names in a tune folder.
const char* tuneResultsFileName();  ///< tune_results.csv: fitness, then the space's arguments
const char* tuneBestFileName();     ///< best_hyperparameters.yaml
/// True when `dir` is a tune folder (it holds tune_results.csv).
bool isTuneFolder(const std::string& dir);
/// The iterations a tune folder plans in all (its tune.yaml). Throws ywb::Error naming the file.
int tuneIterationsPlanned(const std::string& dir);
/// The run folder of a tune's best iteration so far (<dir>/iterK). Throws ywb::Error naming the file when the
/// tune's files cannot be read or no iteration has finished.
std::string bestTuneRun(const std::string& dir);
/// Reads tune_results.csv against `space` (its columns must be fitness and the space's names, in order).
/// Throws ywb::Error naming the file and line.
std::vector<TuneRow> readTuneResults(const std::string& path, const std::vector<TuneDimension>& space);

}  // namespace ywb
