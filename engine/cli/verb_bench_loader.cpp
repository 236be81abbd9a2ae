#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/augment.h"
#include "ywb/loader_bench.h"

namespace ywb::cli {
namespace {

int runBench(const Args& a) {
  std::vector<std::string> known = {"data",   "split", "imgsz",   "batch", "workers",
                                    "epochs", "cache", "augment", "seed",  "buffer"};
  for (const auto& n : AugmentParams::names()) known.push_back(n);
  a.requireKnown(known);
  if (!a.has("data")) return reportError(a, "bench loader: missing data=path/to/data.yaml");
  LoaderBenchOptions o;
  o.data = a.str("data");
  o.split = a.str("split", o.split);
  o.imgsz = int(a.integer("imgsz", o.imgsz));
  o.batch = int(a.integer("batch", o.batch));
  o.workers = int(a.integer("workers", o.workers));
  o.epochs = int(a.integer("epochs", o.epochs));
  const std::string cache = a.str("cache", "false");
  if (cache != "ram" && cache != "true" && cache != "false" && cache != "none") {
    return reportError(a, "bench loader: cache=" + cache + " must be ram or false");
  }
  o.cache_ram = cache == "ram" || cache == "true";
  o.augment = a.boolean("augment", true);
  o.decoded_buffer = a.boolean("buffer", true);
  o.seed = uint64_t(a.integer("seed", 0));
  // The augmentation keys are training arguments: the same ranges and messages as `ywb train`.
  TrainArgs aug;
  for (const auto& n : AugmentParams::names())
    if (a.has(n)) aug.set(n, a.str(n));
  o.hyp = augmentParamsOf(aug);
  const LoaderBenchReport r = runLoaderBench(o);
  std::cout << (a.json ? loaderBenchJson(o, r) + "\n" : loaderBenchText(o, r));
  return 0;
}

const RegisterVerb reg{
    {"bench loader", "measure data loader throughput (images/s, per-stage times)",
     "data=data.yaml [imgsz=640] [batch=16] [workers=2] [epochs=2] [cache=false|ram] [buffer=true]\n"
     "        [augment=true] [split=train] [seed=0] [mosaic=1 ... any augmentation setting] [--json]\n\n"
     "Runs the training loader over the split: one warm-up epoch, then `epochs` timed epochs.\n"
     "Prints images/s and the CPU time per image spent decoding, augmenting (Mosaic, affine,\n"
     "HSV, flips) and collating, and how long the consumer waited per batch. buffer=false turns off\n"
     "the decoded-image buffer that serves Mosaic's partners from memory (for comparison).",
     runBench}};

}  // namespace
}  // namespace ywb::cli
