#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <iostream>

#include "cli/train_progress.h"
#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "core/error.h"
#include "ywb/dist.h"
#include "ywb/train_args.h"
#include "ywb/trainer.h"

namespace ywb::cli {
namespace {

Trainer* g_trainer = nullptr;

extern "C" void onInterrupt(int sig) {
  // First Ctrl-C (or SIGTERM, e.g. from the GUI, a launcher or Slurm): finish the step, save `last`, exit
  // cleanly. A second one kills the process.
  if (g_trainer) g_trainer->requestStop();
  std::signal(sig, SIG_DFL);
}

extern "C" void onPauseToggle(int) {
  // SIGUSR1 pauses before the next step, a second SIGUSR1 continues (atomic flags: signal-safe).
  if (g_trainer) g_trainer->setPaused(!g_trainer->paused());
}

int runTrain(const Args& a) {
  TrainArgs args;
  if (a.has("cfg")) {
    for (const auto& k : loadTrainArgsYaml(a.str("cfg"), args)) {
      const std::string why = ultralyticsArgumentNote(k);
      std::cerr << "ywb: note: " << a.str("cfg") << ": ignoring '" << k << "' ("
                << (why.empty() ? "not a training argument here" : why) << ")\n";
    }
  }
  for (const auto& [key, value] : a.values) {
    if (key == "cfg") continue;
    // Ultralytics' boolean form of pretrained= (its default is True), as its args.yaml writes it: off here,
    // as loadTrainArgsYaml reads it; a .pt model= starts from its own weights either way, as in Ultralytics.
    if (key == "pretrained" && isBooleanWord(value)) {
      if ((value[0] == 't' || value[0] == 'T') && !a.json)
        std::cerr
            << "ywb: note: pretrained=true: a .pt model= starts from its weights and a YAML from scratch, "
               "as in Ultralytics (pretrained=FILE transfers weights into model=)\n";
      continue;
    }
    if (!args.set(key, value)) {
      if (const std::string why = ultralyticsArgumentNote(key); !why.empty())
        fail("'", key, "=' is an Ultralytics argument this trainer does not take: ", why);
      std::vector<std::string> known = {"cfg"};
      for (const auto& s : trainArgSpecs()) known.push_back(s.name);
      a.requireKnown(known);
    }
  }
  if (const std::string note = resolveResumeFlag(args); !note.empty() && !a.json)
    std::cerr << "ywb: " << note << "\n";
  // Several ranks asked for and no launcher around us: start one process per rank (this binary again,
  // with torchrun's variables), relay rank 0's output and fail if any rank fails.
  // Counted from the arguments the run will use: a resumed run keeps its checkpoint's layout.
  const TrainArgs resolved = resolveTrainArgs(args);
  // Official names (model=yolo11n.pt, pretrained=yolov8s.pt) are fetched here, with a progress bar, before
  // any rank starts; the trainer then finds them in the weights cache, and the run records the name.
  resolveWeightsArg(resolved.model, a.json);
  resolveWeightsArg(resolved.pretrained, a.json);
  const int ranks = localRanksRequested(resolved.device, resolved.world);
  if (!distEnvFromEnvironment().present && ranks > 1) {
    LaunchOptions lo;
    lo.argv = {"ywb", "train"};
    for (const auto& [key, value] : a.values) {  // resume=true as resolved here: every rank continues one run
      if (key == "model" && std::find(args.given.begin(), args.given.end(), "model") == args.given.end())
        continue;
      lo.argv.push_back(key + "=" + (key == "resume" ? args.resume : value));
    }
    if (a.json) lo.argv.push_back("--json");
    lo.world = ranks;
    lo.grace_s = resolved.dist_timeout + 30;
    if (!a.json)
      std::cerr << "ywb: starting " << ranks << " ranks on this machine (device=" << resolved.device << ")\n";
    std::signal(SIGUSR1, SIG_IGN);  // the launcher forwards it to rank 0 (see launchLocalWorkers)
    return launchLocalWorkers(lo);
  }
  const pid_t parent = ::getppid();
  TrainProgress progress(a.json);
  Trainer trainer(args);
  trainer.setObserver(&progress);
  g_trainer = &trainer;
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  std::signal(SIGUSR1, onPauseToggle);
  const TrainSummary s = trainer.run();
  g_trainer = nullptr;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGUSR1, SIG_DFL);
  if (s.stopped && launchedRankLostItsLauncher(parent)) {
    // The launcher's death stopped this rank (see launchLocalWorkers): say so, not "stopped by the user".
    std::cerr << "ywb: rank " << distEnvFromEnvironment().rank << ": its launcher (pid " << parent
              << ") is gone (killed?); this rank stopped with it (epochs complete: " << s.epochs_completed
              << "); `ywb train resume=" << s.run_dir << "` continues the run\n";
    return 143;
  }
  return s.stopped ? 130 : 0;
}

std::string trainHelp() {
  std::string h =
      "data=DATA.yaml [model=yolov8n.yaml] [epochs=100] [imgsz=640] [batch=16] [device=cpu|0] [workers=8]\n"
      "          [name=train] [cfg=args.yaml] [resume=RUN] [any argument below] [--json]\n\n"
      "Trains a detector and writes runs/detect/<name>/ (args.yaml, results.csv, weights/last and best\n"
      ".safetensors). Metrics are COCO-exact (pycocotools numbers; they read lower than Ultralytics'\n"
      "in-training mAP). Ctrl-C stops after the current step and saves weights/last.safetensors;\n"
      "`ywb train resume=runs/detect/NAME` continues (with epochs=N it trains a run longer; patience, time,\n"
      "workers, device and on_save_error may change too). `kill -USR1 PID` pauses before the next step and\n"
      "continues on the next SIGUSR1 (all ranks of a distributed run). --json prints one JSON event per\n"
      "line. model= and pretrained= may name official weights (yolov8n.pt ... yolo26x.pt, `ywb weights "
      "list`):\n"
      "they are downloaded into the weights cache on first use.\n\narguments:\n";
  std::string group;
  for (const auto& s : trainArgSpecs()) {
    if (s.group != group) {
      group = s.group;
      h += "  [" + group + "]\n";
    }
    std::string left = "    " + s.name + "=" + (s.default_text.empty() ? "\"\"" : s.default_text);
    if (left.size() < 32) left.resize(32, ' ');
    h += left + " " + s.help + "\n";
  }
  return h;
}

const RegisterVerb reg{
    {"train", "train a detector (Ultralytics-style arguments; resumable)", trainHelp(), runTrain}};

}  // namespace
}  // namespace ywb::cli
