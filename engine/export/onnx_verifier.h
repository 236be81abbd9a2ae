// Cross-checks an exported ONNX file against LibTorch: loads it with OpenCV's DNN module (a second,
// independent runtime) and compares its output with DetectionModel::predict() on the same inputs.
// Thread rules: free functions; the model must not be used by another thread meanwhile.
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <utility>
#include <vector>

#include "model/detection_model.h"
#include "ywb/export.h"

namespace ywb::onnx_export {

/// Whether OpenCV DNN is compiled in (YW_HAVE_OPENCV_DNN) and its version ("4.6.0"), or "".
std::string openCvDnnVersion();

/// An OpenCV exception's text (what()) on one line: its nested lines joined, '>' markers and runs of spaces
/// dropped.
std::string oneLineOpenCvError(const std::string& what);

/// OpenCV DNN's error when it cannot load the graph ("" when it loads, or when OpenCV DNN is not built in).
std::string openCvLoadError(const std::string& onnx_bytes);

/// Letterboxed (Ultralytics LetterBox, pad 114, no auto) RGB inputs [1,3,h,w] in [0,1] from up to `count`
/// images of `source` (an image or a folder, sorted); a deterministic synthetic image when source is "".
/// Unreadable images are skipped; `used` receives the paths used.
std::vector<at::Tensor> verificationInputs(const std::string& source, int count, int64_t h, int64_t w,
                                           std::vector<std::string>* used);

/// Stacks `images` ([1,3,h,w] each) into batches of `batch`, reusing images cyclically when there are
/// fewer than `batch`; the last batch is filled the same way. Throws ywb::Error when `images` is empty.
std::vector<at::Tensor> batchInputs(const std::vector<at::Tensor>& images, int64_t batch);

/// Runs the ONNX file with OpenCV DNN and `model` (any mode; evaluated with no grad) on each input (any
/// [N,3,H,W]; one loaded network runs them all, so a dynamic graph is checked at every shape given) and
/// fills the comparison. Criterion: max |boxes diff| <= tol * max(1, max |box|) and max |scores diff| <= tol.
ExportVerification compareOnnxWithTorch(const std::string& onnx_path, model::DetectionModel& model,
                                        const std::vector<at::Tensor>& inputs, double tol = 1e-4);

/// The same for serialised model bytes (e.g. widenFloat16Initializers() of a file).
ExportVerification compareOnnxBytesWithTorch(const std::string& onnx_bytes, model::DetectionModel& model,
                                             const std::vector<at::Tensor>& inputs, double tol = 1e-4);

/// The same comparison with ONNX Runtime (onnx_runtime_node.h) as the second runtime: for graphs OpenCV DNN
/// cannot load (its 4.7 and later do not import symbolic sizes, opencv/opencv#26141). Not run (ran = false,
/// note says what to install) without ONNX Runtime.
ExportVerification compareOnnxWithOnnxRuntime(const std::string& onnx_path, model::DetectionModel& model,
                                              const std::vector<at::Tensor>& inputs, double tol = 1e-4);

/// Adds one batch's comparison to `v`: `got` (the second runtime's output) against `ref` (LibTorch's), both
/// [N, 4+nc, anchors]: the largest box and score differences, the box scale, the images; NaN/Inf in `got`
/// becomes the note, naming `runtime`.
void addOutputDiff(ExportVerification& v, const at::Tensor& got, const at::Tensor& ref,
                   const std::string& runtime);
/// passed = no note and both differences within v.tolerance (boxes relative to max(1, box scale)).
void settleVerdict(ExportVerification& v);
/// A verification against LibTorch by `runtime` ("OpenCV", "ONNX Runtime") to `tol`: v.tolerance and
/// v.criterion.
void setDiffCriterion(ExportVerification& v, const std::string& runtime, double tol);

/// The verification's input shapes as its method names them: "[2,3,128,128], [1,3,128,224]".
std::string shapesText(const std::vector<std::vector<int64_t>>& shapes);

/// Largest |a(x) - b(x)| over boxes and over scores of two LibTorch models on the inputs (no grad, eval).
std::pair<double, double> torchOutputDiff(model::DetectionModel& a, model::DetectionModel& b,
                                          const std::vector<at::Tensor>& inputs);

}  // namespace ywb::onnx_export
