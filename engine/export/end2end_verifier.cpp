#include "export/end2end_verifier.h"

#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.h"
#include "eval/end2end.h"
#include "export/onnx_runtime_node.h"

namespace ywb::onnx_export {
namespace {

bool sameDetection(const float* a, const float* b, double box_tol, double* box_diff) {
  if (a[5] != b[5]) return false;
  double d = 0;
  for (int c = 0; c < 4; ++c) d = std::max(d, double(std::abs(a[c] - b[c])));
  if (d > box_tol) return false;
  *box_diff = d;
  return true;
}

}  // namespace

DetectionsMatch compareDetections(const at::Tensor& got_in, const at::Tensor& ref_in, double tol) {
  if (got_in.sizes() != ref_in.sizes() || got_in.dim() != 3 || got_in.size(2) != 6)
    fail("end-to-end output ", got_in.sizes(), " vs LibTorch ", ref_in.sizes(), ": expected equal [N, k, 6]");
  const at::Tensor got = got_in.to(at::kCPU, at::kFloat).contiguous();
  const at::Tensor ref = ref_in.to(at::kCPU, at::kFloat).contiguous();
  DetectionsMatch m;
  const int64_t n = ref.size(0), k = ref.size(1);
  if (k == 0) return m;
  m.box_scale = ref.narrow(2, 0, 4).abs().max().item<double>();
  m.max_score_diff = (got.select(2, 4) - ref.select(2, 4)).abs().max().item<double>();
  const double box_tol = tol * std::max(1.0, m.box_scale);
  for (int64_t b = 0; b < n; ++b) {
    const float* g = got[b].data_ptr<float>();
    const float* r = ref[b].data_ptr<float>();
    const double cut = r[(k - 1) * 6 + 4];
    for (int64_t i = 0; i < k; ++i) {
      ++m.rows;
      const float* gi = g + i * 6;
      double d = 0;
      if (sameDetection(gi, r + i * 6, box_tol, &d)) {
        m.max_box_diff = std::max(m.max_box_diff, d);
        continue;
      }
      bool found = false;
      for (int64_t j = 0; j < k && !found; ++j)
        found = std::abs(r[j * 6 + 4] - gi[4]) <= tol && sameDetection(gi, r + j * 6, box_tol, &d);
      if (found) {
        ++m.reordered;
        m.max_box_diff = std::max(m.max_box_diff, d);
      } else if (std::abs(gi[4] - cut) <= tol) {
        ++m.boundary;
      } else {
        if (m.mismatched++ == 0) {
          const float* ri = r + i * 6;
          char buf[256];
          std::snprintf(buf, sizeof buf,
                        "image %lld row %lld: (%.2f %.2f %.2f %.2f score %.5f class %g) vs LibTorch "
                        "(%.2f %.2f %.2f %.2f score %.5f class %g)",
                        static_cast<long long>(b), static_cast<long long>(i), gi[0], gi[1], gi[2], gi[3],
                        gi[4], gi[5], ri[0], ri[1], ri[2], ri[3], ri[4], ri[5]);
          m.first_mismatch = buf;
        }
      }
    }
  }
  return m;
}

at::Tensor end2endReference(model::DetectionModel& model, const at::Tensor& x, int max_det) {
  torch::NoGradGuard no_grad;
  const at::Tensor pred = model->detect()->decode(model->forwardInference(x, /*end2end=*/true));
  return eval::end2endTopK(pred, max_det);
}

ExportVerification compareEnd2EndWithOnnxRuntime(const std::string& onnx_path, model::DetectionModel& model,
                                                 const std::vector<at::Tensor>& inputs, int max_det,
                                                 double tol) {
  ExportVerification v;
  setEnd2EndCriterion(v, "ONNX Runtime", tol);
  const std::optional<OnnxRuntimeRun> run = runForVerification(
      v, onnx_path, inputs, "ONNX Runtime is needed to run the end-to-end graph (OpenCV DNN has no TopK)",
      "LibTorch's end2endDetections");
  if (!run) return v;
  compareEnd2EndOutputs(v, run->outputs, model, inputs, max_det);
  return v;
}

void setEnd2EndCriterion(ExportVerification& v, const std::string& runtime, double tol) {
  v.tolerance = tol;
  v.criterion = "every detection row (x1 y1 x2 y2 score class) of " + runtime +
                " matches LibTorch's NMS-free inference: class equal, |box diff| <= " + std::to_string(tol) +
                " x max(1, max |box|), |score diff| <= " + std::to_string(tol) +
                " (rows of near-equal scores may swap; see rows)";
}

void compareEnd2EndOutputs(ExportVerification& v, const std::vector<at::Tensor>& outputs,
                           model::DetectionModel& model, const std::vector<at::Tensor>& inputs, int max_det) {
  const double tol = v.tolerance;
  const bool was_training = model->is_training();
  model->eval();
  const at::Device device = model->parameters().front().device();
  DetectionsMatch total;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor ref = end2endReference(model, inputs[i].to(device), max_det).to(at::kCPU);
    v.input_shapes.emplace_back(inputs[i].sizes().begin(), inputs[i].sizes().end());
    if (outputs.at(i).sizes() != ref.sizes()) {
      model->train(was_training);
      v.note = outputShapeMismatch(outputs[i], ref);
      return;
    }
    const DetectionsMatch m = compareDetections(outputs[i], ref, tol);
    total.rows += m.rows;
    total.reordered += m.reordered;
    total.boundary += m.boundary;
    total.mismatched += m.mismatched;
    total.max_box_diff = std::max(total.max_box_diff, m.max_box_diff);
    total.max_score_diff = std::max(total.max_score_diff, m.max_score_diff);
    total.box_scale = std::max(total.box_scale, m.box_scale);
    if (total.first_mismatch.empty()) total.first_mismatch = m.first_mismatch;
    v.images += int(inputs[i].size(0));
  }
  model->train(was_training);
  v.ran = true;
  v.max_abs_diff_boxes = total.max_box_diff;
  v.max_abs_diff_scores = total.max_score_diff;
  v.box_scale = total.box_scale;
  v.rows = std::to_string(total.rows) +
           " compared: " + std::to_string(total.rows - total.reordered - total.boundary - total.mismatched) +
           " in place, " + std::to_string(total.reordered) + " reordered among equal scores, " +
           std::to_string(total.boundary) + " at the max_det cut, " + std::to_string(total.mismatched) +
           " mismatched";
  v.passed = total.mismatched == 0 && v.max_abs_diff_scores <= tol &&
             v.max_abs_diff_boxes <= tol * std::max(1.0, v.box_scale);
  if (!v.passed)
    v.note = "outputs differ beyond the tolerance" +
             (total.first_mismatch.empty() ? std::string() : ": first at " + total.first_mismatch);
}

}  // namespace ywb::onnx_export
