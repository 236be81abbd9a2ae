// An exported detection model opened for inference (`ywb val` / `ywb predict weights=best.onnx` or
// `best.torchscript`), whatever format holds it: what every format shares. Each format's reader implements
// ExportedDetector (export/onnx_detector.h, export/torchscript_detector.h); openExportedDetector() picks one
// by the file's extension, as Ultralytics' AutoBackend does.
// A detector takes float [N, 3, H, W] RGB in [0, 1] and gives either [N, 4+nc, anchors] (cx, cy, w, h in
// input pixels, then class probabilities: NMS comes after) or, end-to-end (YOLO26), [N, k, 6] rows of
// x1, y1, x2, y2, score, class.
// Thread rules: one thread uses a detector at a time; the free functions are pure.
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ywb::exported {

struct ExportedModelInfo {
  std::string path;
  std::string format;              ///< "ONNX", "TorchScript"
  std::vector<std::string> names;  ///< from the metadata; class0.. when it has none
  int64_t batch = 1;               ///< the graph's fixed batch, -1 when symbolic
  int64_t height = 0, width = 0;   ///< the graph's fixed input size, -1 when symbolic
  int imgsz = 0;                   ///< the size it was exported at (metadata imgsz), 0 when not said
  int stride = 32;                 ///< metadata stride (32 when not said)
  bool end2end = false;            ///< [N, k, 6] detections (NMS-free), not [N, 4+nc, anchors]
  /// What runs it: "OpenCV DNN 4.6.0", "ONNX Runtime 1.30.0 (onnxruntime-node ...)", "LibTorch 1.13.0
  /// TorchScript interpreter".
  std::string runtime;
  bool in_process = false;  ///< runs in this process; false: a child process per run() call
  bool fixedSize() const { return height > 0 && width > 0; }
};

class ExportedDetector {
 public:
  virtual ~ExportedDetector() = default;
  virtual const ExportedModelInfo& info() const = 0;
  /// The model's output for each input (float [N, 3, H, W]; any N: a fixed batch is filled with copies of
  /// the last image and the extra rows dropped, or the input is run in parts). Throws ywb::Error with the
  /// runtime's message, or when H x W differs from a fixed input size.
  virtual std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) = 0;
};

/// Whether `path` names an exported model this program runs (.onnx, .torchscript), by its extension as
/// Ultralytics decides.
bool isExportedModelPath(const std::string& path);

/// Opens `path` with its format's reader. Throws ywb::Error naming the file when it is missing, not of its
/// format, not a detection model, contradicted by its metadata, or when nothing here can run it.
std::unique_ptr<ExportedDetector> openExportedDetector(const std::string& path);

/// The square size to run `info`'s model at when `requested` (0: not said) was asked for: a fixed-size
/// model's own size (a request for another throws ywb::Error saying so; a non-square one throws too, as
/// callers letterbox to squares), else `requested`, else the size it was exported at, else 640.
int exportedImageSize(const ExportedModelInfo& info, int requested);

/// Throws ywb::Error when options an exported model cannot honour were asked for: end2end=false of an
/// end-to-end model (it holds no one-to-many head), augment=true (test-time augmentation needs the model's
/// strides and passes of its own).
void checkExportedOptions(const ExportedModelInfo& info, bool end2end, bool augment);

/// ExportedDetector::run's batching for a reader whose `exact` runs inputs of the model's own batch (any
/// batch when symbolic): each input made float32 and contiguous on the CPU, checked against a fixed size,
/// cut into parts of the fixed batch with the last part filled with copies of its last image; `exact` gets
/// every part at once and returns one output per part; the outputs are joined per input and the filler
/// rows dropped.
std::vector<at::Tensor> runInModelBatches(
    const ExportedModelInfo& info, const std::vector<at::Tensor>& inputs,
    const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>& exact);

}  // namespace ywb::exported
