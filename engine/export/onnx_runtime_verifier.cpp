// compareOnnxWithOnnxRuntime (onnx_verifier.h): an exported detection graph ([N, 4+nc, anchors]) run in ONNX
// Runtime and compared with LibTorch, for graphs OpenCV DNN cannot load.
#include <torch/types.h>

#include "core/error.h"
#include "export/onnx_runtime_node.h"
#include "export/onnx_verifier.h"

namespace ywb::onnx_export {

ExportVerification compareOnnxWithOnnxRuntime(const std::string& onnx_path, model::DetectionModel& model,
                                              const std::vector<at::Tensor>& inputs, double tol) {
  ExportVerification v;
  setDiffCriterion(v, "ONNX Runtime", tol);
  const std::optional<OnnxRuntimeRun> run =
      runForVerification(v, onnx_path, inputs, "ONNX Runtime would verify it", "LibTorch");
  if (!run) return v;
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const at::Device device = model->parameters().front().device();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor ref = model->predict(inputs[i].to(device)).to(at::kCPU, at::kFloat).contiguous();
    v.input_shapes.emplace_back(inputs[i].sizes().begin(), inputs[i].sizes().end());
    if (run->outputs[i].sizes() != ref.sizes()) {
      model->train(was_training);
      v.note = outputShapeMismatch(run->outputs[i], ref);
      return v;
    }
    addOutputDiff(v, run->outputs[i], ref, "ONNX Runtime");
  }
  model->train(was_training);
  v.ran = true;
  settleVerdict(v);
  return v;
}

}  // namespace ywb::onnx_export
