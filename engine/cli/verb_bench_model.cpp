#include <iostream>

#include "cli/verb_registry.h"
#include "core/op_profile.h"
#include "ywb/model_bench.h"

namespace ywb::cli {
namespace {

int runBenchModel(const Args& a) {
  a.requireKnown({"model", "nc", "imgsz", "batch", "device", "warmup", "iters", "threads", "loss", "amp",
                  "seed", "channels_last", "cuda_graphs", "optimizer", "ops", "trace", "peak"});
  ModelBenchOptions o;
  o.model = a.str("model", o.model);
  o.nc = int(a.integer("nc", o.nc));
  o.imgsz = int(a.integer("imgsz", o.imgsz));
  o.batch = int(a.integer("batch", o.batch));
  o.device = a.str("device", o.device);
  o.warmup = int(a.integer("warmup", o.warmup));
  o.iters = int(a.integer("iters", o.iters));
  o.threads = int(a.integer("threads", o.threads));
  o.loss = a.str("loss", o.loss);
  o.amp = a.boolean("amp", o.amp);
  o.channels_last = a.boolean("channels_last", o.channels_last);
  o.cuda_graphs = a.boolean("cuda_graphs", o.cuda_graphs);
  o.seed = uint64_t(a.integer("seed", 0));
  o.optimizer = a.str("optimizer", o.optimizer);
  o.ops = int(a.integer("ops", o.ops));
  o.trace = a.str("trace", o.trace);
  o.peak = a.boolean("peak", o.peak);
  const ModelBenchResult r = benchModel(o);
  std::cout << (a.json ? modelBenchJson(o, r) + "\n" : modelBenchText(o, r));
  return 0;
}

const RegisterVerb reg{
    {"bench model", "time forward, backward and optimizer step on synthetic input",
     "[model=yolov8n.yaml] [imgsz=320] [batch=8] [device=cpu] [iters=10] [warmup=2]\n"
     "       [threads=0] [loss=yolo|mse] [amp=false] [channels_last=false] [cuda_graphs=false] [nc=80]\n"
     "       [seed=0] [optimizer=SGD|AdamW|MuSGD|...] [peak=false] [ops=N] [trace=FILE.json] [--json]\n\n"
     "Trains on one synthetic batch (random pixels, random boxes) and prints the median time\n"
     "of each phase and images/s. The trainer's optimizer and parameter groups (lr 0.01,\n"
     "momentum 0.937, Nesterov, weight decay 5e-4 on weights); SGD unless optimizer= says.\n"
     "The loss is the model's training loss: an end-to-end model (YOLO26) trains both head\n"
     "branches (one-to-many and one-to-one, weighted as in a run's first epoch), eagerly.\n\n"
     "  loss=mse     mean of squared head outputs instead of the YOLO loss, to compare the\n"
     "               model alone with tests/bench/bench_model_torch.py\n"
     "  threads=N    LibTorch intra-op threads (0 = all available CPUs)\n"
     "  amp=BOOL     autocast: float16 on CUDA, bfloat16 on a CPU\n"
     "  channels_last=BOOL  NHWC memory format for weights and input\n"
     "  cuda_graphs=BOOL    replay forward and backward as CUDA graphs (CUDA only)\n"
     "  peak=BOOL    also time a square matrix product in the step's precision (1024 on a CPU,\n"
     "               8192 on CUDA) and print the forward's and backward's FLOP rates as shares\n"
     "               of it: how near the convolutions run to what this device's GEMM reaches\n" +
         opsHelp(),
     runBenchModel}};

}  // namespace
}  // namespace ywb::cli
