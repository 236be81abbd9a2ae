#include "export/exported_detector.h"

#include "core/error.h"
#include "core/text.h"
#include "export/onnx_detector.h"
#include "export/torchscript_detector.h"

namespace ywb::exported {

bool isExportedModelPath(const std::string& path) {
  return hasExtension(path, {"onnx", "torchscript"});
}

std::unique_ptr<ExportedDetector> openExportedDetector(const std::string& path) {
  if (hasExtension(path, {"onnx"})) return std::make_unique<onnx_export::OnnxDetector>(path);
  if (hasExtension(path, {"torchscript"})) return std::make_unique<torchscript::TorchScriptDetector>(path);
  fail(path, ": not an exported model this program runs (.onnx, .torchscript)");
}

int exportedImageSize(const ExportedModelInfo& info, int requested) {
  if (!info.fixedSize()) return requested > 0 ? requested : info.imgsz > 0 ? info.imgsz : 640;
  if (info.height != info.width)
    fail(info.path, " takes ", info.height, " x ", info.width,
         " images; its images are letterboxed to squares here: export a square imgsz",
         info.format == "ONNX" ? " or with dynamic=true" : "");
  if (requested > 0 && requested != info.height)
    fail(info.path, " takes ", info.height, " x ", info.width, " images only (a fixed-size ", info.format,
         " model), not imgsz=", requested,
         info.format == "ONNX" ? ": leave imgsz out or export with dynamic=true"
                               : ": leave imgsz out or export it again at that imgsz");
  return int(info.height);
}

void checkExportedOptions(const ExportedModelInfo& info, bool end2end, bool augment) {
  if (info.end2end && !end2end)
    fail(info.path,
         " holds an end-to-end (NMS-free) model only; export with end2end=false for the "
         "one-to-many head with NMS");
  if (augment) fail("augment=true needs the model's own weights: ", info.path, " runs one pass per image");
}

std::vector<at::Tensor> runInModelBatches(
    const ExportedModelInfo& info, const std::vector<at::Tensor>& inputs,
    const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>& exact) {
  // Every input as the model takes it; spans[i] lists (first part, part count, real images) of input i.
  std::vector<at::Tensor> feed;
  struct Span {
    size_t first, count;
    int64_t images;
  };
  std::vector<Span> spans;
  for (const at::Tensor& input : inputs) {
    const at::Tensor x = input.to(at::kCPU, at::kFloat).contiguous();
    if (x.dim() != 4 || x.size(1) != 3) fail(info.path, ": an input must be [N, 3, H, W], not ", x.sizes());
    if (info.fixedSize() && (x.size(2) != info.height || x.size(3) != info.width))
      fail(info.path, " takes ", info.height, " x ", info.width, " images only (a fixed-size ", info.format,
           " model), not ", x.size(2), " x ", x.size(3));
    const int64_t n = x.size(0), b = info.batch > 0 ? info.batch : n;
    if (n < 1) fail(info.path, ": an input holds no image");
    spans.push_back({feed.size(), size_t((n + b - 1) / b), n});
    for (int64_t s = 0; s < n; s += b) {
      at::Tensor part = x.narrow(0, s, std::min(b, n - s));
      if (part.size(0) < b)
        part = at::cat(
            {part, part.narrow(0, part.size(0) - 1, 1).expand({b - part.size(0), 3, x.size(2), x.size(3)})});
      feed.push_back(part.contiguous());
    }
  }
  const std::vector<at::Tensor> got = exact(feed);
  if (got.size() != feed.size())
    fail(info.path, ": the runtime gave ", got.size(), " outputs for ", feed.size(), " inputs");
  std::vector<at::Tensor> outs;
  for (const Span& s : spans) {
    std::vector<at::Tensor> parts(got.begin() + long(s.first), got.begin() + long(s.first + s.count));
    outs.push_back(at::cat(parts, 0).narrow(0, 0, s.images));
  }
  return outs;
}

}  // namespace ywb::exported
