// An exported ONNX detection model opened for inference, so that `ywb val` can measure what a deployment
// runs. It reads our exports and Ultralytics' alike: input "images", float [N, 3, H, W] RGB in [0, 1];
// output "output0", either [N, 4+nc, anchors] (cx, cy, w, h in input pixels, then class probabilities:
// NMS comes after) or, for an end-to-end graph (YOLO26), [N, k, 6] rows of x1, y1, x2, y2, score, class.
// The class names, export size and end-to-end flag come from the file's metadata (export/onnx_metadata.h).
// It runs in OpenCV DNN, in this process, when OpenCV loads the graph (fp16 weights are widened to fp32
// first, which OpenCV 4.6 needs), otherwise in ONNX Runtime (export/onnx_runtime_node.h, a child process
// per run() call, so callers hand it many inputs at once).
// Thread rules: one thread uses an OnnxDetector at a time.
#pragma once
#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

namespace ywb::onnx_export {

struct OnnxModelInfo {
  std::string path;
  std::vector<std::string> names;  ///< from the metadata; class0.. when it has none
  int64_t batch = 1;               ///< the graph's fixed batch, -1 when symbolic
  int64_t height = 0, width = 0;   ///< the graph's fixed input size, -1 when symbolic
  int imgsz = 0;                   ///< the size it was exported at (metadata imgsz), 0 when not said
  int stride = 32;                 ///< metadata stride (32 when not said)
  bool end2end = false;            ///< [N, k, 6] detections (NMS-free), not [N, 4+nc, anchors]
  std::string runtime;             ///< "OpenCV DNN 4.6.0", "ONNX Runtime 1.30.0 (onnxruntime-node ...)"
  bool in_process = false;         ///< OpenCV DNN runs it here; false: ONNX Runtime in a child process
  bool fixedSize() const { return height > 0 && width > 0; }
};

/// The square size to run `info`'s graph at when `requested` (0: not said) was asked for: a fixed-size
/// graph's own size (a request for another throws ywb::Error saying so; a non-square one throws too, as
/// callers letterbox to squares), else `requested`, else the size it was exported at, else 640.
int onnxImageSize(const OnnxModelInfo& info, int requested);

/// Throws ywb::Error when options a graph cannot honour were asked for: end2end=false of an end-to-end graph
/// (it holds no one-to-many head), augment=true (test-time augmentation needs the model's strides and
/// passes of its own).
void checkOnnxOptions(const OnnxModelInfo& info, bool end2end, bool augment);

/// Whether `path` names an ONNX file (by its extension, as Ultralytics decides).
bool isOnnxPath(const std::string& path);

class OnnxDetector {
 public:
  /// Opens and checks the file. Throws ywb::Error naming the file when it is missing or not ONNX, when it is
  /// not a detection graph of the form above, when its metadata contradicts its shapes, or when no runtime
  /// here can run it (and what to install).
  explicit OnnxDetector(const std::string& path);
  ~OnnxDetector();
  OnnxDetector(const OnnxDetector&) = delete;
  OnnxDetector& operator=(const OnnxDetector&) = delete;

  const OnnxModelInfo& info() const;

  /// The graph's output for each input (float [N, 3, H, W]; any N: a fixed batch is filled with copies of
  /// the last image and the extra rows dropped, or the input is run in parts). Throws ywb::Error with the
  /// runtime's message, or when H x W differs from a fixed input size.
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb::onnx_export
