#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "core/atomic_file.h"
#include "ywb/error.h"
#include "ywb/format_benchmark.h"
#include "ywb/inference.h"

namespace ywb::cli {
namespace {

nlohmann::ordered_json rowJson(const FormatBenchmarkRow& r) {
  nlohmann::ordered_json j{{"format", r.format}, {"ok", r.ok}, {"file", r.file}};
  if (!r.ok) {
    j["error"] = r.error;
    return j;
  }
  j["runtime"] = r.runtime;
  j["size_mb"] = r.size_mb;
  j["mAP50-95"] = r.map;
  j["mAP50"] = r.map50;
  j["ms_inference"] = r.ms_inference;
  j["ms_total"] = r.ms_total;
  j["nms_free"] = r.nms_free;
  return j;
}

std::string rowLine(const FormatBenchmarkRow& r) {
  char line[512];
  if (!r.ok) {
    std::snprintf(line, sizeof line, "%-32s %-6s %s", r.format.c_str(), "failed", r.error.c_str());
  } else {
    std::snprintf(line, sizeof line, "%-32s %-6s %9.1f %9.4f %7.4f %14.1f %10.1f %7.1f   %s",
                  r.format.c_str(), "ok", r.size_mb, r.map, r.map50, r.ms_inference, r.ms_total,
                  r.ms_total > 0 ? 1000.0 / r.ms_total : 0.0, r.runtime.c_str());
  }
  return line;
}

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
  const char* header =
      "Format                           Status Size (MB)  mAP50-95   mAP50  Inference (ms/im) "
      "Total (ms/im)    FPS   Runtime";
  if (!a.json) {
    std::printf("Benchmarking %s on %s (%s split); exports in %s\n%s\n", o.weights.c_str(), o.data.c_str(),
                o.split.c_str(), o.out_dir.c_str(), header);
    o.on_row = [](const FormatBenchmarkRow& r) {
      std::printf("%s\n", rowLine(r).c_str());
      std::fflush(stdout);
    };
  }
  const FormatBenchmarkReport rep = benchmarkFormats(o);
  nlohmann::ordered_json j{{"weights", rep.weights},
                           {"data", rep.data},
                           {"imgsz", rep.imgsz},
                           {"images", rep.images},
                           {"folder", o.out_dir}};
  j["rows"] = nlohmann::ordered_json::array();
  std::string text = std::string(header) + "\n";
  bool all_ok = true;
  for (const auto& r : rep.rows) {
    j["rows"].push_back(rowJson(r));
    text += rowLine(r) + "\n";
    all_ok = all_ok && r.ok;
  }
  writeFileAtomic(o.out_dir + "/benchmarks.json", j.dump(2) + "\n");
  writeFileAtomic(o.out_dir + "/benchmarks.txt", text);
  if (a.json) {
    std::printf("%s\n", j.dump(2).c_str());
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
