// An exported ONNX detection model opened for inference (export/exported_detector.h), our exports and
// Ultralytics' alike: input "images", float [N, 3, H, W] RGB in [0, 1]; output "output0", either
// [N, 4+nc, anchors] or, for an end-to-end graph (YOLO26), [N, k, 6] rows. The class names, export size and
// end-to-end flag come from the file's metadata (export/onnx_metadata.h).
// It runs in OpenCV DNN, in this process, when OpenCV loads the graph (fp16 weights are widened to fp32
// first, which OpenCV 4.6 needs), otherwise in ONNX Runtime (export/onnx_runtime_node.h, a child process
// per run() call, so callers hand it many inputs at once).
// Thread rules: one thread uses an OnnxDetector at a time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "export/exported_detector.h"

namespace ywb::onnx_export {

class OnnxDetector : public exported::ExportedDetector {
 public:
  /// Opens and checks the file. Throws ywb::Error naming the file when it is missing or not ONNX, when it is
  /// not a detection graph of the form above, when its metadata contradicts its shapes, or when no runtime
  /// here can run it (and what to install).
  explicit OnnxDetector(const std::string& path);
  ~OnnxDetector() override;
  OnnxDetector(const OnnxDetector&) = delete;
  OnnxDetector& operator=(const OnnxDetector&) = delete;

  const exported::ExportedModelInfo& info() const override;
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb::onnx_export
