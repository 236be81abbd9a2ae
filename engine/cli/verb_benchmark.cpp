#include <cstdio>
#include <string>

#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "ywb/error.h"
#include "ywb/format_benchmark.h"
#include "ywb/inference.h"

namespace ywb::cli {
namespace {

int runBenchmark(const Args& a) {
  a.requireKnown(
      {"weights", "model", "data", "imgsz", "batch", "workers", "device", "split", "project", "name"});
  FormatBenchmarkOptions o;
  o.weights = resolveWeightsArg(weightsValue(a), a.json);
  o.data = a.str("data");
  o.split = a.str("split", o.split);
  o.imgsz = int(a.integer("imgsz", 0));
  o.batch = int(a.integer("batch", o.batch));
  o.workers = int(a.integer("workers", o.workers));
  o.device = a.str("device");
  if (o.weights.empty() || o.data.empty()) throw Error("benchmark needs weights=FILE and data=DATA.yaml");
  o.out_dir = newRunDir(a.str("project", "runs/detect"), a.str("name", "benchmark"));
  if (!a.json) {
    std::printf("Benchmarking %s on %s (%s split); exports in %s\n%s\n", o.weights.c_str(), o.data.c_str(),
                o.split.c_str(), o.out_dir.c_str(), benchmarkHeader().c_str());
    o.on_row = [](const FormatBenchmarkRow& r) {
      std::printf("%s\n", benchmarkRowLine(r).c_str());
      std::fflush(stdout);
    };
  }
  const FormatBenchmarkReport rep = benchmarkFormats(o);
  writeBenchmarkFiles(rep, o.out_dir);
  bool all_ok = true;
  for (const auto& r : rep.rows) all_ok = all_ok && r.ok;
  if (a.json) {
    std::printf("%s", benchmarkJson(rep, o.out_dir).c_str());
  } else {
    std::printf("%d images at imgsz %d; ms per image over the split; the table is in %s/benchmarks.txt\n",
                rep.images, rep.imgsz, o.out_dir.c_str());
  }
  return all_ok ? 0 : 3;
}

const RegisterVerb reg{
    {"benchmark", "export weights to every format and validate each export (Ultralytics' benchmark mode)",
     "weights=FILE data=DATA.yaml [imgsz=from weights] [batch=16] [workers=2] [device=cpu|0] [split=val]\n"
     "        [project=runs/detect] [name=benchmark] [--json]\n\n"
     "Validates the weights, then exports them to each format this program writes (safetensors, ONNX, ONNX\n"
     "with fp16 weights, TorchScript; for an end-to-end model (YOLO26) its NMS-free ONNX graph and its\n"
     "one-to-many graph) into a new run folder and validates every export the same way (`ywb val`: same "
     "loader,\n"
     "NMS and COCO-exact metrics). ONNX graphs are exported with dynamic sizes, so every row sees the\n"
     "same rectangular batches and differs by format alone; they run in OpenCV DNN, or in ONNX Runtime\n"
     "where OpenCV cannot. TorchScript is traced at a fixed size and batch (imgsz, batch=), so its row\n"
     "(\"squares\") is validated on square batches, as Ultralytics validates fixed-size exports; its\n"
     "numbers compare with `ywb val rect=false` of the weights. Each row: size, mAP50-95, mAP50,\n"
     "inference and total time per image, and the runtime. The weights are validated twice and the\n"
     "second time is shown, so that the process's one-time set-up does not weigh on the first row only;\n"
     "every validation warms up on its first batch.\n"
     "A format that fails is a row saying why; the others go on, and the exit status is 3.\n"
     "The table is also written to benchmarks.txt and benchmarks.json in the run folder.",
     runBenchmark}};

}  // namespace
}  // namespace ywb::cli
