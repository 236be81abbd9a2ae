// exportWeights(): the engine side of `ywb export` and the GUI's Export dialog.
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/stopwatch.h"
#include "core/threads.h"
#include "export/end2end_verifier.h"
#include "export/onnx_metadata.h"
#include "export/onnx_serializer.h"
#include "export/onnx_verifier.h"
#include "export/torchscript_export.h"
#include "export/weights_export.h"
#include "export/yolo_onnx_builder.h"
#include "train/model_loader.h"
#include "ywb/export.h"
#include "ywb/version.h"
#include "ywb/weights.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

std::string outputPath(const ExportOptions& o, const std::string& suffix) {
  const fs::path src(o.weights);
  const fs::path dir = o.out_dir.empty() ? src.parent_path() : fs::path(o.out_dir);
  const std::string stem = o.name.empty() ? src.stem().string() : o.name;
  const fs::path out = dir / (stem + suffix);
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(out, src, ec))
    fail("export would overwrite its input ", out.string(), ": choose name= or out_dir=");
  return out.string();
}

// What an Ultralytics export format name is, for the message refusing it: ONNX is the way to all of them.
std::string ultralyticsFormat(const std::string& f) {
  static const std::map<std::string, std::string> k = {
      {"openvino", "OpenVINO"},   {"engine", "TensorRT"},
      {"coreml", "CoreML"},       {"saved_model", "TF SavedModel"},
      {"pb", "TF GraphDef"},      {"tflite", "TF Lite"},
      {"edgetpu", "Edge TPU"},    {"tfjs", "TF.js"},
      {"paddle", "PaddlePaddle"}, {"mnn", "MNN"},
      {"ncnn", "NCNN"},           {"imx", "IMX"},
      {"rknn", "RKNN"},           {"executorch", "ExecuTorch"}};
  const auto it = k.find(f);
  if (it == k.end()) return "unknown; ";
  return "Ultralytics' " + it->second + " export, which ywb does not write (export onnx: " + it->second +
         "'s own tools convert ONNX files); ";
}

void writeReportFile(ExportReport report, const ExportedFile& f) {
  report.files = {f};
  writeFileAtomic(f.report_path, formatExportReport(report));
}

ExportedFile exportSafetensors(const ExportOptions& o, LoadedModel& lm, const WeightsInfo& src) {
  const auto t0 = SteadyClock::now();
  ExportedFile f;
  f.format = "safetensors";
  f.path = outputPath(o, o.half ? ".weights-fp16.safetensors" : ".weights.safetensors");
  const NamedTensors tensors = export_detail::exportTensors(lm.model, o.half);
  const auto meta = export_detail::weightsMetadata(src.metadata, lm.model, lm.names, lm.imgsz, o.weights);
  writeSafetensors(f.path, tensors, meta);
  f.size = fs::file_size(f.path);
  for (const auto& [name, t] : tensors)
    if (t.is_floating_point()) f.parameters += t.numel();
  f.detail = std::string(o.half ? "fp16" : "fp32") + ", " + std::to_string(tensors.size()) +
             " tensors (Ultralytics keys), metadata " + kWeightsFormat;
  if (o.verify) f.verification = export_detail::verifySafetensors(f.path, tensors);
  f.report_path = f.path + ".report.txt";
  f.seconds = secondsSince(t0);
  return f;
}

// The shapes an exported graph is run at: its own for a static graph; for a dynamic one the export size
// and a larger one (+3 strides: 320 -> 416) at batch 2, and one rectangle, all through one loaded network.
struct VerifyShape {
  int64_t batch, h, w;
};

std::vector<VerifyShape> verifyShapes(const ExportOptions& o, int64_t imgsz, int64_t smax) {
  if (!o.dynamic) return {{o.batch, imgsz, imgsz}};
  const int64_t big = imgsz + 3 * smax;
  return {{2, imgsz, imgsz}, {2, big, big}, {1, imgsz, big}};
}

// OpenCV DNN vs LibTorch. fp32: the file as written vs the unfused model (so the BatchNorm folding is
// checked too). half: the reference is the fused model with its weights rounded to fp16 exactly as the
// file stores them; OpenCV 4.6 cannot read FLOAT16 initializers, so when the file does not load it runs
// the file with those initializers decoded to fp32 (and their Casts dropped), and the cost of fp16 itself
// (fp16-rounded vs fp32 LibTorch) is reported beside it.
ExportVerification verifyOnnx(const ExportOptions& o, LoadedModel& lm, LoadedModel& fused, int64_t imgsz,
                              const std::string& path) {
  std::vector<at::Tensor> inputs;
  std::vector<std::string> used;
  for (const auto& s : verifyShapes(o, imgsz, lm.model->strides().back())) {
    used.clear();
    const auto images =
        onnx_export::verificationInputs(o.verify_source, std::max(1, o.verify_images), s.h, s.w, &used);
    for (auto& b : onnx_export::batchInputs(images, s.batch)) inputs.push_back(std::move(b));
  }
  const std::string what =
      o.verify_source.empty() ? "a synthetic image"
                              : std::to_string(used.size()) + " letterboxed image(s) from " + o.verify_source;
  ExportVerification v;
  std::string how;
  const bool end2end = lm.model->end2end() && o.end2end;  // the NMS-free graph: ONNX Runtime alone runs it
  if (end2end) {
    // OpenCV 4.6 cannot load the graph (no TopK): ONNX Runtime runs it; OpenCV's error goes in the report.
    if (o.half) {
      torch::NoGradGuard no_grad;
      for (auto& p : fused.model->parameters()) p.copy_(p.to(at::kHalf).to(at::kFloat));
    }
    v = onnx_export::compareEnd2EndWithOnnxRuntime(path, o.half ? fused.model : lm.model, inputs, o.max_det);
    v.opencv_error = onnx_export::openCvLoadError(readFile(path));
    how = o.half ? " (fused, same fp16-rounded weights)" : " (unfused)";
  } else if (!o.half) {
    v = onnx_export::compareOnnxWithTorch(path, lm.model, inputs);
    how = " (unfused)";
  } else {
    torch::NoGradGuard no_grad;
    for (auto& p : fused.model->parameters()) p.copy_(p.to(at::kHalf).to(at::kFloat));
    const std::string bytes = readFile(path);
    v = onnx_export::compareOnnxBytesWithTorch(bytes, fused.model, inputs);
    if (v.ran) {
      how = " (fused, same fp16-rounded weights) on the fp16 file itself";
    } else if (!v.method.empty()) {  // OpenCV is there but did not load the file
      const std::string why = v.note;
      int widened = 0;
      v = onnx_export::compareOnnxBytesWithTorch(onnx_export::widenFloat16Initializers(bytes, &widened),
                                                 fused.model, inputs);
      how = " (fused, same fp16-rounded weights) on the file with its " + std::to_string(widened) +
            " FLOAT16 initializers decoded to fp32 (the file itself: " + why + ")";
    }
  }
  if (!v.ran && !v.method.empty() && !end2end) {
    // OpenCV DNN is there but cannot load the file (its 4.7 and later import no symbolic sizes,
    // opencv/opencv#26141: a dynamic graph fails at the first Concat after a Resize): ONNX Runtime verifies
    // the file itself, and the report keeps OpenCV's error.
    ExportVerification rt =
        onnx_export::compareOnnxWithOnnxRuntime(path, o.half ? fused.model : lm.model, inputs);
    rt.opencv_error = onnx_export::openCvLoadError(readFile(path));
    if (!rt.ran) rt.note = v.note + "; " + rt.note;
    if (o.dynamic)
      rt.note = "for OpenCV DNN, export with dynamic=false" + (rt.note.empty() ? "" : "; " + rt.note);
    how = o.half ? " (fused, same fp16-rounded weights) on the fp16 file itself" : " (unfused)";
    v = rt;
  }
  if (o.half && !end2end) {  // whichever runtime verified the file
    const auto [boxes, scores] = onnx_export::torchOutputDiff(lm.model, fused.model, inputs);
    v.fp16_effect_measured = true;
    v.fp16_effect_boxes = boxes;
    v.fp16_effect_scores = scores;
  }
  v.method = "ONNX checker + " + (v.method.empty() ? std::string("(no second runtime)") : v.method) + how +
             " on " + what +
             (v.input_shapes.empty() ? "" : ", inputs " + onnx_export::shapesText(v.input_shapes));
  return v;
}

ExportedFile exportOnnx(const ExportOptions& o, LoadedModel& lm, int imgsz) {
  const auto t0 = SteadyClock::now();
  ExportedFile f;
  f.format = "onnx";
  f.path = outputPath(o, ".onnx");
  // The exported graph comes from a fused copy; the reference for the comparison stays unfused, so the
  // check covers the BatchNorm folding too.
  LoadedModel fused = loadModelWeights(o.weights, at::Device(at::kCPU));
  fused.model->fuse();
  onnx_export::YoloOnnxOptions yo;
  yo.batch = o.batch;
  yo.height = yo.width = imgsz;
  yo.dynamic = o.dynamic;
  yo.opset = o.opset;
  yo.metadata = {{"description", "YOLO Workbench " +
                                     std::string(lm.model->scale().empty() ? "" : lm.model->spec().family) +
                                     lm.model->scale() + " detection model"},
                 {"author", "YOLO Workbench"},
                 {"version", kVersion},
                 {"task", "detect"},
                 {"stride", std::to_string(lm.model->strides().back())},
                 {"batch", std::to_string(o.batch)},
                 {"imgsz", onnx_export::pythonImgsz(imgsz, imgsz)},
                 {"names", onnx_export::pythonNames(lm.names)},
                 {"source", o.weights}};
  yo.half = o.half;
  yo.end2end = o.end2end && lm.model->end2end();
  yo.max_det = o.max_det;
  if (yo.end2end) yo.metadata["end2end"] = "True";  // Python literals, as Ultralytics' metadata
  if (yo.end2end) yo.metadata["max_det"] = std::to_string(o.max_det);
  const onnx_export::OnnxGraph g = onnx_export::buildYoloOnnx(fused.model, yo);
  const std::string bytes = onnx_export::serializeOnnx(g);
  onnx_export::checkOnnx(bytes);
  writeFileAtomic(f.path, bytes);
  f.size = fs::file_size(f.path);
  f.parameters = g.parameterCount();
  f.detail =
      "opset " + std::to_string(o.opset) + ", " + std::to_string(g.nodes.size()) + " nodes, fused Conv+BN, " +
      (o.half ? "fp16 weights (FLOAT16 + Cast), fp32 compute and I/O" : std::string("fp32")) +
      (o.dynamic ? ", dynamic batch/height/width" : ", static shapes") +
      (yo.end2end ? ", end-to-end (one-to-one head, TopK, no NMS; max_det " + std::to_string(o.max_det) + ")"
                  : std::string(lm.model->end2end() ? ", one-to-many head (end2end=false)" : "")) +
      "; ONNX checker passed";
  for (const auto& v : g.inputs) f.inputs.push_back({v.name, "float32", v.dims, v.params});
  for (const auto& v : g.outputs) f.outputs.push_back({v.name, "float32", v.dims, v.params});
  if (o.verify) f.verification = verifyOnnx(o, lm, fused, imgsz, f.path);
  f.report_path = f.path + ".report.txt";
  f.seconds = secondsSince(t0);
  return f;
}

std::string shapeText(const ExportTensorSpec& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const bool sym = t.shape[i] < 0;
    s += (i ? ", " : "") +
         (sym ? (i < t.dim_names.size() ? t.dim_names[i] : "?") : std::to_string(t.shape[i]));
  }
  return s + "]";
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace

bool ExportReport::allVerified() const {
  for (const auto& f : files)
    if (!f.verification.ran || !f.verification.passed) return false;
  return !files.empty();
}

bool onnxExportAvailable() {
  return onnx_export::onnxAvailable();
}

bool onnxVerificationAvailable() {
  return !onnx_export::openCvDnnVersion().empty();
}

ExportReport exportWeights(const ExportOptions& o) {
  return guarded("export", [&] {
    if (o.weights.empty()) fail("export needs weights=FILE (a checkpoint or weights .safetensors)");
    if (!fs::is_regular_file(o.weights)) fail("weights=", o.weights, ": no such file");
    if (o.formats.empty()) fail("export needs at least one format (safetensors, onnx, torchscript)");
    bool want_st = false, want_onnx = false, want_ts = false;
    for (const auto& f : o.formats) {
      if (f == "safetensors")
        want_st = true;
      else if (f == "onnx")
        want_onnx = true;
      else if (f == "torchscript")
        want_ts = true;
      else
        fail("format=", f, ": ", ultralyticsFormat(f), "supported: safetensors, onnx, torchscript");
    }
    if (want_onnx && !onnx_export::onnxAvailable()) onnx_export::serializeOnnx({});  // throws the clear error
    if (o.opset < 12 || o.opset > 13) fail("opset=", o.opset, ": supported opsets are 12 and 13");
    if (o.batch < 1) fail("batch=", o.batch, ": must be >= 1");
    if (o.max_det < 1) fail("max_det=", o.max_det, ": must be >= 1");
    configureTorchThreads(0);
    const WeightsInfo src = inspectWeights(o.weights);
    LoadedModel lm = loadModelWeights(o.weights, at::Device(at::kCPU));
    ExportReport r;
    r.source = o.weights;
    r.kind = lm.kind;
    r.model = lm.model->scale().empty() || lm.model->spec().family.empty()
                  ? lm.model->spec().name
                  : lm.model->spec().family + lm.model->scale();
    r.names = lm.names;
    const int64_t smax = lm.model->strides().back();
    const int64_t want = o.imgsz > 0 ? o.imgsz : lm.imgsz;
    r.imgsz =
        int(((want + smax - 1) / smax) * smax);  // like Ultralytics' check_imgsz: round up to the stride
    if (want_st) r.files.push_back(exportSafetensors(o, lm, src));
    if (want_onnx) r.files.push_back(exportOnnx(o, lm, r.imgsz));
    if (want_ts)
      r.files.push_back(torchscript::exportTorchScript(o, lm, r.imgsz, outputPath(o, ".torchscript")));
    for (const auto& f : r.files) writeReportFile(r, f);
    return r;
  });
}

std::string formatExportReport(const ExportReport& r) {
  std::string s = "Export of " + r.source + " (" + r.kind + ", " + r.model + ", " +
                  std::to_string(r.names.size()) + " classes, imgsz " + std::to_string(r.imgsz) + ")\n";
  for (const auto& f : r.files) {
    s += "  " + f.format + ": " + f.path + " (" + std::to_string(f.size) + " bytes, " +
         std::to_string(f.parameters) + " values, " + num(f.seconds) + " s)\n";
    s += "    " + f.detail + "\n";
    for (const auto& t : f.inputs) s += "    input  " + t.name + " " + t.dtype + " " + shapeText(t) + "\n";
    for (const auto& t : f.outputs) s += "    output " + t.name + " " + t.dtype + " " + shapeText(t) + "\n";
    const auto& v = f.verification;
    if (!v.opencv_error.empty()) s += "    OpenCV DNN cannot load it: " + v.opencv_error + "\n";
    if (!v.ran) {
      s += "    verification: not run" + (v.note.empty() ? std::string() : " (" + v.note + ")") + "\n";
      continue;
    }
    s += std::string("    verification: ") + (v.passed ? "PASSED" : "FAILED") + " - " + v.method + "\n";
    if (!v.runtime.empty()) s += "      runtime: " + v.runtime + "\n";
    if (!v.rows.empty()) s += "      rows: " + v.rows + "\n";
    if (f.format == "onnx" || f.format == "torchscript") {
      s += "      max |diff| boxes " + num(v.max_abs_diff_boxes) + " px (box scale " + num(v.box_scale) +
           "), scores " + num(v.max_abs_diff_scores) + " over " + std::to_string(v.images) + " image(s)\n";
      if (v.fp16_effect_measured)
        s += "      fp16 weights vs fp32 (LibTorch, informational): boxes " + num(v.fp16_effect_boxes) +
             " px, scores " + num(v.fp16_effect_scores) + "\n";
    }
    s += "      criterion: " + v.criterion + "\n";
    if (!v.note.empty()) s += "      note: " + v.note + "\n";
  }
  return s;
}

std::string exportReportJson(const ExportReport& r) {
  nlohmann::json j;
  j["source"] = r.source;
  j["kind"] = r.kind;
  j["model"] = r.model;
  j["names"] = r.names;
  j["imgsz"] = r.imgsz;
  j["all_verified"] = r.allVerified();
  j["files"] = nlohmann::json::array();
  auto tensors = [](const std::vector<ExportTensorSpec>& ts) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& t : ts)
      a.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"dim_names", t.dim_names}});
    return a;
  };
  for (const auto& f : r.files) {
    const auto& v = f.verification;
    j["files"].push_back({{"format", f.format},
                          {"path", f.path},
                          {"report", f.report_path},
                          {"size", f.size},
                          {"parameters", f.parameters},
                          {"detail", f.detail},
                          {"seconds", f.seconds},
                          {"inputs", tensors(f.inputs)},
                          {"outputs", tensors(f.outputs)},
                          {"verification",
                           {{"ran", v.ran},
                            {"passed", v.passed},
                            {"method", v.method},
                            {"runtime", v.runtime},
                            {"rows", v.rows},
                            {"opencv_error", v.opencv_error},
                            {"images", v.images},
                            {"max_abs_diff_boxes", v.max_abs_diff_boxes},
                            {"max_abs_diff_scores", v.max_abs_diff_scores},
                            {"box_scale", v.box_scale},
                            {"tolerance", v.tolerance},
                            {"criterion", v.criterion},
                            {"note", v.note},
                            {"input_shapes", v.input_shapes},
                            {"fp16_effect_measured", v.fp16_effect_measured},
                            {"fp16_effect_boxes", v.fp16_effect_boxes},
                            {"fp16_effect_scores", v.fp16_effect_scores}}}});
  }
  return j.dump(2);
}

}  // namespace ywb
