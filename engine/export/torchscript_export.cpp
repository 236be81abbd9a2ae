#include "export/torchscript_export.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>

#include <ctime>
#include <filesystem>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/stopwatch.h"
#include "export/end2end_verifier.h"
#include "export/onnx_verifier.h"
#include "export/torchscript_detector.h"
#include "export/torchscript_metadata.h"
#include "sys/torch_info.h"
#include "ywb/version.h"

namespace fs = std::filesystem;

namespace ywb::torchscript {
namespace {

// What the module computes for images x: the ONNX export's output0.
at::Tensor exportedOutput(model::DetectionModel& m, const at::Tensor& x, bool end2end, int max_det) {
  return end2end ? onnx_export::end2endReference(m, x, max_det) : m->predict(x);
}

// Traces `m` at `example` into a module whose forward(images) is exportedOutput(). The parameters become
// constants of the graph (the tracer bakes in tensors it did not see enter), so they must not require grad.
torch::jit::Module traceModule(model::DetectionModel& m, const at::Tensor& example, bool end2end, int max_det,
                               at::Tensor* output) {
  m->eval();
  for (auto& p : m->parameters()) p.set_requires_grad(false);
  torch::NoGradGuard no_grad;
  const auto fn = [&](torch::jit::Stack in) -> torch::jit::Stack {
    return {exportedOutput(m, in.at(0).toTensor(), end2end, max_det)};
  };
  std::shared_ptr<torch::jit::tracer::TracingState> state;
  torch::jit::Stack outs;
  try {
    std::tie(state, outs) = torch::jit::tracer::trace(
        {example}, fn, [](const torch::autograd::Variable&) { return std::string(); }, /*strict=*/true);
  } catch (const c10::Error& e) {
    fail("the model could not be traced to TorchScript: ", e.what_without_backtrace());
  }
  *output = outs.at(0).toTensor();
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module module(c10::QualifiedName("__torch__.ywb.DetectionModel"), cu);
  const std::shared_ptr<torch::jit::Graph> graph = state->graph;
  graph->inputs().at(0)->setDebugName("images");
  graph->insertInput(0, "self")->setType(module._ivalue()->type());
  module.type()->addMethod(cu->create_function(c10::QualifiedName(*module.type()->name(), "forward"), graph));
  return module;
}

// The floating-point values the module's graph holds as tensor constants (the weights it uses: a YOLO26
// end-to-end model's one-to-many branches are not traced, so not stored).
int64_t constantValues(torch::jit::Module& module) {
  int64_t n = 0;
  for (const torch::jit::Node* node : module.get_method("forward").graph()->nodes())
    if (node->kind() == c10::prim::Constant && node->hasAttribute(c10::attr::value) &&
        node->kindOf(c10::attr::value) == torch::jit::AttributeKind::t &&
        node->t(c10::attr::value).is_floating_point())
      n += node->t(c10::attr::value).numel();
  return n;
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char b[16];
  std::strftime(b, sizeof b, "%Y-%m-%d", std::gmtime(&t));
  return b;
}

ExportVerification verify(const ExportOptions& o, LoadedModel& lm, int imgsz, const std::string& path,
                          bool end2end) {
  std::vector<std::string> used;
  const auto images =
      onnx_export::verificationInputs(o.verify_source, std::max(1, o.verify_images), imgsz, imgsz, &used);
  const std::vector<at::Tensor> inputs = onnx_export::batchInputs(images, o.batch);
  const double tol = 1e-4;
  ExportVerification v;
  TorchScriptDetector loaded(path);  // as `ywb val` and `ywb predict` load it
  v.runtime = loaded.info().runtime;
  const std::vector<at::Tensor> outs = loaded.run(inputs);
  if (end2end) {
    onnx_export::setEnd2EndCriterion(v, "TorchScript", tol);
    onnx_export::compareEnd2EndOutputs(v, outs, lm.model, inputs, o.max_det);
  } else {
    onnx_export::setDiffCriterion(v, "TorchScript", tol);
    torch::NoGradGuard no_grad;
    const bool was_training = lm.model->is_training();
    lm.model->eval();
    for (size_t i = 0; i < inputs.size(); ++i) {
      v.input_shapes.emplace_back(inputs[i].sizes().begin(), inputs[i].sizes().end());
      onnx_export::addOutputDiff(v, outs[i], lm.model->predict(inputs[i]).to(at::kFloat), "TorchScript");
    }
    lm.model->train(was_training);
    v.ran = true;
    onnx_export::settleVerdict(v);
  }
  const std::string what =
      o.verify_source.empty() ? "a synthetic image"
                              : std::to_string(used.size()) + " letterboxed image(s) from " + o.verify_source;
  v.method = "the file loaded back and run by " + v.runtime + " vs LibTorch's modules (unfused) on " + what +
             (v.input_shapes.empty() ? "" : ", inputs " + onnx_export::shapesText(v.input_shapes));
  return v;
}

}  // namespace

ExportedFile exportTorchScript(const ExportOptions& o, LoadedModel& lm, int imgsz, const std::string& path) {
  const auto t0 = SteadyClock::now();
  if (o.half)
    fail(
        "half=true: TorchScript is exported in fp32 here (it is traced on the CPU, where fp16 convolutions "
        "do not run); export it without half");
  ExportedFile f;
  f.format = "torchscript";
  f.path = path;
  // A fused copy is traced; the unfused model stays the reference, so the check covers the folding too.
  LoadedModel fused = loadModelWeights(o.weights, at::Device(at::kCPU));
  fused.model->fuse();
  const bool end2end = o.end2end && lm.model->end2end();
  // A fixed random image: the trace records operations, not values, and the check then runs other images.
  const at::Tensor example = at::rand({o.batch, 3, imgsz, imgsz}, at::detail::createCPUGenerator(0));
  at::Tensor out;
  torch::jit::Module module = traceModule(fused.model, example, end2end, o.max_det, &out);

  TorchScriptMetadata meta;
  meta.names = lm.names;
  meta.height = meta.width = imgsz;
  meta.stride = int(lm.model->strides().back());
  meta.batch = o.batch;
  meta.end2end = end2end;
  meta.max_det = end2end ? int(out.size(1)) : 0;
  meta.description = "YOLO Workbench " +
                     std::string(lm.model->scale().empty() ? "" : lm.model->spec().family) +
                     lm.model->scale() + " detection model";
  meta.author = "YOLO Workbench";
  meta.version = kVersion;
  meta.date = today();
  meta.source = o.weights;
  std::ostringstream bytes;
  module.save(bytes, {{kConfigFile, configJson(meta)}});
  writeFileAtomic(f.path, bytes.str());
  f.size = fs::file_size(f.path);
  f.parameters = constantValues(module);
  f.detail =
      "traced by LibTorch " + torchBuildInfo().version + " at [" + std::to_string(o.batch) + ", 3, " +
      std::to_string(imgsz) + ", " + std::to_string(imgsz) + "] (fixed batch and size" +
      (o.dynamic ? "; dynamic applies to ONNX only" : "") + "), fused Conv+BN, fp32, CPU" +
      (end2end ? ", end-to-end (one-to-one head, top-k, no NMS; max_det " + std::to_string(o.max_det) + ")"
               : std::string(lm.model->end2end() ? ", one-to-many head (end2end=false)" : "")) +
      "; metadata in " + kConfigFile;
  f.inputs.push_back({"images", "float32", {o.batch, 3, imgsz, imgsz}, {}});
  f.outputs.push_back({"output0", "float32", out.sizes().vec(), {}});
  if (o.verify) f.verification = verify(o, lm, imgsz, f.path, end2end);
  f.report_path = f.path + ".report.txt";
  f.seconds = secondsSince(t0);
  return f;
}

}  // namespace ywb::torchscript
