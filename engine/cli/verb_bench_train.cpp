#include <iostream>

#include "cli/verb_registry.h"
#include "core/op_profile.h"
#include "ywb/train_bench.h"

namespace ywb::cli {
namespace {

// Training arguments as for `ywb train`, plus the benchmark's own keys.
TrainBenchOptions parseOptions(const Args& a, bool epoch_mode) {
  TrainBenchOptions o;
  o.epoch_mode = epoch_mode;
  o.args.epochs = 1;  // bench epoch: one epoch unless epochs= says otherwise
  std::vector<std::string> known = {"steps", "warmup", "ops", "trace"};
  for (const auto& s : trainArgSpecs()) known.push_back(s.name);
  a.requireKnown(known);
  for (const auto& [key, value] : a.values) {
    if (key == "steps" || key == "warmup" || key == "ops" || key == "trace") continue;
    o.args.set(key, value);
  }
  o.steps = int(a.integer("steps", o.steps));
  o.warmup = int(a.integer("warmup", o.warmup));
  o.ops = int(a.integer("ops", o.ops));
  o.trace = a.str("trace", o.trace);
  return o;
}

int runBench(const Args& a, bool epoch_mode) {
  const TrainBenchResult r = benchTrain(parseOptions(a, epoch_mode));
  std::cout << (a.json ? trainBenchJson(r) + "\n" : trainBenchText(r));
  return 0;
}
int runBenchTrain(const Args& a) {
  return runBench(a, false);
}
int runBenchEpoch(const Args& a) {
  return runBench(a, true);
}

const RegisterVerb reg_train{
    {"bench train", "time full training steps with the real data loader, split by segment",
     "data=DATA.yaml [model=yolov8n.yaml] [imgsz=640] [batch=16] [device=cpu|0] [workers=8]\n"
     "       [steps=10] [warmup=3] [ops=N] [trace=FILE.json] [any `ywb train` argument] [--json]\n\n"
     "Runs warmup + steps training steps exactly as `ywb train` does (loader, augmentation, AMP,\n"
     "loss, accumulation, clipping, EMA) and prints the mean time per step of each segment: data\n"
     "wait, host-to-device copy, forward, loss, backward, optimizer, EMA, log sync; images/s with\n"
     "and without the data wait, peak RSS, and on a GPU its peak memory and mean utilisation\n"
     "(NVML). The device is synchronised at every segment boundary to attribute GPU time, so\n"
     "images/s here is a lower bound of an unprofiled run's. Nothing is written to disk.\n\n" +
         opsHelp(),
     runBenchTrain}};

const RegisterVerb reg_epoch{
    {"bench epoch", "time whole training epochs (incl. validation and checkpoints)",
     "data=DATA.yaml [epochs=1] [model=yolov8n.yaml] [imgsz=640] [batch=16] [device=cpu|0]\n"
     "       [workers=8] [any `ywb train` argument] [--json]\n\n"
     "Runs the real Trainer for `epochs` epochs in a temporary run folder (deleted afterwards) and\n"
     "splits the wall time into setup (scan, build, AMP check), training, validation and saving;\n"
     "prints the trainer's images/s, the last epoch's COCO-exact mAP, peak RSS and GPU readings.",
     runBenchEpoch}};

}  // namespace
}  // namespace ywb::cli
