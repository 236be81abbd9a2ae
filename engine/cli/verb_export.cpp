#include <iostream>
#include <sstream>

#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "ywb/export.h"

namespace ywb::cli {
namespace {

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int runExport(const Args& a) {
  a.requireKnown({"weights", "model", "format", "imgsz", "half", "dynamic", "batch", "opset", "end2end",
                  "max_det", "verify", "source", "verify_images", "out_dir", "name"});
  ExportOptions o;
  const std::string given = weightsValue(a);
  o.weights = resolveWeightsArg(given, a.json);
  if (o.weights.empty())
    return reportError(a, "weights=FILE is required (a checkpoint or weights .safetensors)");
  o.formats = splitList(a.str("format", "safetensors"));
  o.imgsz = int(a.integer("imgsz", 0));
  o.half = a.boolean("half", false);
  o.dynamic = a.boolean("dynamic", false);
  o.batch = int(a.integer("batch", 1));
  o.opset = int(a.integer("opset", 12));
  o.end2end = a.boolean("end2end", true);
  o.max_det = int(a.integer("max_det", 300));
  o.verify = a.boolean("verify", true);
  o.verify_source = a.str("source");
  o.verify_images = int(a.integer("verify_images", 4));
  o.out_dir = a.str("out_dir");
  // An official name (weights=yolo11n.pt) resolved into the weights cache: export into the working folder,
  // never into the cache.
  if (o.out_dir.empty() && o.weights != given) o.out_dir = ".";
  o.name = a.str("name");
  const ExportReport r = exportWeights(o);
  if (a.json)
    std::cout << exportReportJson(r) << "\n";
  else
    std::cout << formatExportReport(r);
  for (const auto& f : r.files)
    if (f.verification.ran && !f.verification.passed) return 3;
  return 0;
}

const RegisterVerb reg{
    {"export", "export weights to safetensors, ONNX and/or TorchScript, each verified by reading it back",
     "weights=FILE format=safetensors,onnx,torchscript [imgsz=from weights] [half=false] [dynamic=false] "
     "[batch=1]\n"
     "        [opset=12] [end2end=true] [max_det=300] [verify=true] [source=IMAGE|DIR|LIST.txt|PATTERN] "
     "[verify_images=4]\n"
     "        [out_dir=DIR] [name=STEM] [--json]\n\n"
     "weights= is a training checkpoint (its EMA weights are exported) or exported safetensors weights,\n"
     "or an official name (yolo11n.pt, `ywb weights list`; exported into the working folder); model= works\n"
     "as weights=, as in Ultralytics.\n"
     "  safetensors  the (unfused) state dict with Ultralytics key names and ywb-weights/1 metadata (names,\n"
     "               nc, imgsz, yaml, args, metrics, version): <stem>.weights.safetensors, with half=true\n"
     "               fp16 tensors in <stem>.weights-fp16.safetensors. Verified by reading it back bit for "
     "bit\n"
     "               and loading it strictly.\n"
     "  onnx         the fused (Conv+BN) model, input 'images' [N,3,H,W] (RGB, 0..1), output 'output0'\n"
     "               [N, 4+nc, anchors] (boxes xywh in pixels, sigmoid scores), like Ultralytics' export;\n"
     "               dynamic=true makes batch, height and width symbolic (checked at batch 2 at imgsz and\n"
     "               imgsz + 3 strides, and on a rectangle); half=true stores the weights as fp16 with Cast\n"
     "               nodes (fp32 compute and float32 input/output; half the file). Checked with the ONNX\n"
     "               checker and run with OpenCV DNN against LibTorch on letterboxed images from source= (a\n"
     "               synthetic image when absent): boxes within 1e-4 x the box scale, scores within 1e-4.\n"
     "               OpenCV 4.6 cannot read fp16 tensors: a half file is run with them decoded to fp32,\n"
     "               against LibTorch with the same fp16-rounded weights (the report says so).\n"
     "               End-to-end models (YOLO26) export their NMS-free graph: output 'output0'\n"
     "               [N, min(max_det, anchors), 6] = x1, y1, x2, y2 (pixels), score, class per row, highest\n"
     "               score first, every row kept (filter by score); computed as `ywb val`/`predict` do (top\n"
     "               max_det anchors by best class score, then the top max_det (anchor, class) pairs).\n"
     "               OpenCV 4.6 cannot load it (no TopK): it is run with ONNX Runtime (npm "
     "onnxruntime-node,\n"
     "               installed by installer/install-onnxruntime.sh into $YWB_ONNXRUNTIME_DIR or\n"
     "               ~/.cache/ywb/onnxruntime-node; needs Node.js) against LibTorch's detections: classes\n"
     "               equal, boxes within 1e-4 x the box scale, scores within 1e-4. end2end=false exports "
     "the\n"
     "               one-to-many head instead ([N, 4+nc, anchors], for NMS; verified in OpenCV DNN).\n"
     "  torchscript  the fused model traced by LibTorch at [batch, 3, imgsz, imgsz] (fixed batch and size, "
     "as\n"
     "               Ultralytics' format=torchscript), forward(images) giving what ONNX's output0 gives "
     "(YOLO26:\n"
     "               the end-to-end rows, or with end2end=false the one-to-many head); fp32 (half=true is\n"
     "               refused). Ultralytics' metadata in the archive's config.txt (names, imgsz, stride,\n"
     "               batch, task, end2end), so `ywb val`/`predict` and Ultralytics run it; torch::jit::load\n"
     "               and torch.jit.load load it. Verified by loading it back and running it in LibTorch's\n"
     "               TorchScript interpreter against the unfused modules (same criterion as ONNX).\n"
     "Each exported file gets a <file>.report.txt next to it with what is printed here, including the\n"
     "runtime that verified it.\n\n"
     "Exit status: 0 when exported (and verified, where a check could run), 3 when a verification failed,\n"
     "1 for errors (missing or truncated file, weights that do not match their YAML, no ONNX in this build).",
     runExport}};

}  // namespace
}  // namespace ywb::cli
