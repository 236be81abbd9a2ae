// ONNX Runtime as a second runtime for graphs OpenCV 4.6's DNN cannot load (the end-to-end graph's TopK):
// Microsoft's onnxruntime-node package (npm; its CPU build ships inside the package), driven by a small
// Node.js script that this file writes to a temporary folder. Inputs and outputs travel as raw float32 files.
// installer/install-onnxruntime.sh installs the package into onnxRuntimeDir().
// Thread rules: free functions; each call uses its own temporary folder.
#pragma once
#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

#include "ywb/export.h"

namespace ywb::onnx_export {

/// Where onnxruntime-node is looked for: $YWB_ONNXRUNTIME_DIR, else $XDG_CACHE_HOME/ywb/onnxruntime-node,
/// else ~/.cache/ywb/onnxruntime-node (the folder holds node_modules/onnxruntime-node).
std::string onnxRuntimeDir();

/// What was found: `missing` is "" when node and the package are there, else what is missing and how to
/// install it (one sentence).
struct OnnxRuntimeNode {
  std::string node;        ///< the node executable ($YWB_NODE, else "node" on PATH)
  std::string module_dir;  ///< onnxRuntimeDir()
  std::string missing;
};
OnnxRuntimeNode findOnnxRuntimeNode();

/// Outputs of one run of `onnx_path` with ONNX Runtime (CPU execution provider), one per input, and the
/// versions that ran them.
struct OnnxRuntimeRun {
  std::vector<at::Tensor> outputs;  ///< float32, shapes as ONNX Runtime returned them
  std::string ort_version;          ///< e.g. "1.30.0"
  std::string node_version;         ///< e.g. "v20.20.2"
};

/// "ONNX Runtime 1.30.0 (onnxruntime-node on Node.js v20.20.2)": the runtime that gave `run`.
std::string runtimeName(const OnnxRuntimeRun& run);

/// Runs the graph on each input (float [N,3,H,W], fed as `input_name`; one session runs them all) and
/// returns output `output_name` for each. Throws ywb::Error with ONNX Runtime's or Node's message when the
/// runtime is missing, fails to load the graph or fails to run it.
OnnxRuntimeRun runWithOnnxRuntime(const OnnxRuntimeNode& rt, const std::string& onnx_path,
                                  const std::vector<at::Tensor>& inputs,
                                  const std::string& input_name = "images",
                                  const std::string& output_name = "output0");

/// A verification's ONNX Runtime run: fills v.runtime ("ONNX Runtime 1.30.0 (onnxruntime-node on Node.js
/// v20...)") and v.method (the runtime, " vs ", `reference`) and returns the outputs; when the runtime is
/// missing (v.note: `why_needed`, " and ", what to install) or refuses the graph (v.note: its message),
/// returns nothing.
std::optional<OnnxRuntimeRun> runForVerification(ExportVerification& v, const std::string& onnx_path,
                                                 const std::vector<at::Tensor>& inputs,
                                                 const std::string& why_needed, const std::string& reference);

/// "ONNX Runtime output [a, b, c], LibTorch [d, e, f]": the note when the two disagree in shape.
std::string outputShapeMismatch(const at::Tensor& got, const at::Tensor& ref);

}  // namespace ywb::onnx_export
