// Verification of an end-to-end (YOLO26) ONNX graph, whose output [N, k, 6] is x1, y1, x2, y2, score, class
// per detection: run in ONNX Runtime (OpenCV 4.6's DNN has no TopK) and compared with LibTorch's NMS-free
// inference (the one-to-one branches decoded, then eval::end2endDetections without a confidence threshold).
// Thread rules: free functions; the model must not be used by another thread meanwhile.
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "model/detection_model.h"
#include "ywb/export.h"

namespace ywb::onnx_export {

/// How two [N, k, 6] detection tensors agree. Rows are sorted by score in both; where two scores are
/// within the tolerance of each other the runtimes may order them differently, and at the k-th score (the
/// max_det cut, or stage 1's anchor cut) a near-tie may keep a different row. So a row of `got` counts as
/// matched at its own index, else as reordered when a row of `ref` with a score within `tol` has its class
/// and box, else as at the boundary when its score is within `tol` of the last score; anything else is a
/// mismatch.
struct DetectionsMatch {
  int64_t rows = 0, reordered = 0, boundary = 0, mismatched = 0;
  double max_box_diff = 0;    ///< pixels, over matched and reordered rows
  double max_score_diff = 0;  ///< row by row (both columns are sorted, so order changes do not count)
  double box_scale = 0;       ///< largest |box coordinate| of ref
  std::string first_mismatch;
};
DetectionsMatch compareDetections(const at::Tensor& got, const at::Tensor& ref, double tol);

/// LibTorch's end-to-end detections [N, min(max_det, A), 6] for x (every row, no confidence threshold).
at::Tensor end2endReference(model::DetectionModel& model, const at::Tensor& x, int max_det);

/// v.tolerance and v.criterion of a comparison of `runtime`'s rows ("ONNX Runtime", "TorchScript") with
/// LibTorch's to `tol`.
void setEnd2EndCriterion(ExportVerification& v, const std::string& runtime, double tol);

/// Compares `outputs` (a second runtime's [N, k, 6] rows, one per input) with end2endReference() of `model`
/// on `inputs`, to v.tolerance (setEnd2EndCriterion first): fills ran, passed, rows, the differences,
/// input_shapes and images, or the note when a shape differs.
void compareEnd2EndOutputs(ExportVerification& v, const std::vector<at::Tensor>& outputs,
                           model::DetectionModel& model, const std::vector<at::Tensor>& inputs, int max_det);

/// Runs the graph at `onnx_path` in ONNX Runtime on each input and compares with end2endReference() of
/// `model` (the export passes the unfused model, or the fused one with fp16-rounded weights for half=true).
/// Criterion: no mismatched row, classes equal, max |box diff| <= tol x max(1, box scale), max |score diff|
/// <= tol. Not run (ran = false, note says what to install) without ONNX Runtime.
ExportVerification compareEnd2EndWithOnnxRuntime(const std::string& onnx_path, model::DetectionModel& model,
                                                 const std::vector<at::Tensor>& inputs, int max_det,
                                                 double tol = 1e-4);

}  // namespace ywb::onnx_export
